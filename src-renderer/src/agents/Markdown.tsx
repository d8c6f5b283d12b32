import { memo, type ReactElement } from 'react';
import renderMarkdownTree, { type Options } from 'react-markdown';
import remarkGfm from 'remark-gfm';

/**
 * Model output as markdown. Raw HTML is not rendered (react-markdown escapes it), links open
 * outside the app, and images are not fetched: nothing a model writes can load content.
 */
const OPTIONS: Readonly<Options> = {
  remarkPlugins: [remarkGfm],
  components: {
    a: ({ href, children }) => (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    ),
    img: ({ alt }) => <span className="muted">[image: {alt ?? 'no description'}]</span>,
  },
};

/** Texts whose rendered tree is kept: a session's blocks are rendered again each time it is shown. */
const CACHED_TEXTS = 600;
/** Longer texts are rendered each time (a tree per megabyte of output is not worth keeping). */
const CACHED_TEXT_MAX_CHARS = 64 * 1024;
const cache = new Map<string, ReactElement>();

/**
 * The React tree of `text` as markdown, the same element for the same text while it is cached
 * (least recently used first out). react-markdown's `Markdown` is a plain function of its
 * options (no hooks, no context), so its element can be kept and shown again: switching back to
 * a session parsed each visible block's markdown anew, about 10 ms per switch.
 */
export function markdownTree(text: string, keep = true): ReactElement {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const tree = renderMarkdownTree({ ...OPTIONS, children: text });
  if (keep && text.length <= CACHED_TEXT_MAX_CHARS) {
    cache.set(text, tree);
    if (cache.size > CACHED_TEXTS) cache.delete(cache.keys().next().value!);
  }
  return tree;
}

/** `keep: false` for text still streaming in: each delta is a new text, seen once, that would push the finished ones out. */
export const Markdown = memo(function Markdown({ text, keep = true }: { text: string; keep?: boolean }) {
  return <div className="markdown">{markdownTree(text, keep)}</div>;
});

import { createElement, Fragment, memo, type CSSProperties, type ReactElement, type ReactNode } from 'react';
import MarkdownIt, { type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';

/**
 * Model output as markdown: CommonMark with GFM's tables, strikethrough (`~~x~~`), task lists,
 * footnotes and autolinks, parsed by markdown-it and built into React elements here (no HTML
 * string ever goes into the page). Raw HTML is not parsed (`html: false`: it stays text), a link
 * is made only of an http(s) or mailto address (anything else stays its text), and images are
 * not fetched (their description stands in): nothing a model writes can load content.
 *
 * markdown-it rather than react-markdown (micromark, mdast, hast): for an answer of a list, a
 * code block and a table, react-markdown's element tree took 2.3–4.8 ms in Node and this one
 * takes a tenth of that (docs/performance-scale.md, eleventh pass), paid for each block a
 * session shows the first time and for a streaming answer at each delta.
 */
const parser = new MarkdownIt({ html: false, linkify: true }).use(footnote);
parser.validateLink = (url) => /^(https?:|mailto:)/i.test(url.trim());
// Autolinked text needs a web or mail scheme, or is an e-mail address: fuzzy links would turn
// file names into web addresses ("README.md" is a domain of Moldova), and `//host` or `ftp:`
// would be links nothing opens.
parser.linkify.set({ fuzzyLink: false });
parser.linkify.add('//', null).add('ftp:', null);
// Escapes stay their own tokens (text_special): "\[ ] x" is a bracket, not a task's box.
parser.core.ruler.disable('text_join');

/** An element being built: its tag, its props, the children so far. */
interface Frame {
  tag: string;
  props: Record<string, unknown> | null;
  children: ReactNode[];
  /** A block element is among the children: they are set on lines of their own (below). */
  blocks: boolean;
}

/**
 * Appends what `make` builds to `parent`'s children, keyed by its place. Children go to React
 * as one array, never spread into arguments: a 70,000-line paragraph is 140,000 of them, past
 * what a call takes.
 */
function append(parent: Frame, make: (key: number) => ReactNode): void {
  parent.children.push(make(parent.children.length));
}

/** The element of a finished frame, keyed by its place in its parent. */
const elementOf = (f: Frame, key: number) => createElement(f.tag, { ...f.props, key }, f.children.length > 0 ? f.children : undefined);

/** The alignment of a table cell, from markdown-it's `style="text-align:…"`. */
function cellStyle(token: Token): CSSProperties | undefined {
  const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet('style') ?? ''))?.[1];
  return align ? { textAlign: align as CSSProperties['textAlign'] } : undefined;
}

const TASK = /^\[([ xX])\][ \t]/;

/** Elements whose children are rows and cells only: no text between them, not even a line break. */
const NO_TEXT_INSIDE = new Set(['table', 'thead', 'tbody', 'tr']);

/** The plain text of inline tokens (an image's description); a line break is a space. */
function plainText(tokens: readonly Token[] | null): string {
  return (tokens ?? []).map((t) => (t.type === 'image' ? plainText(t.children) : t.type === 'softbreak' || t.type === 'hardbreak' ? ' ' : t.content)).join('');
}

/** What a block token opens: its element's tag and props (null: no element of its own). */
function openBlock(token: Token): { tag: string; props: Record<string, unknown> | null } | null {
  switch (token.type) {
    case 'paragraph_open':
      // A tight list's paragraphs are not elements: their text sits in the list item.
      return token.hidden ? null : { tag: 'p', props: null };
    case 'ordered_list_open': {
      const start = Number(token.attrGet('start') ?? 1);
      return { tag: 'ol', props: start !== 1 && Number.isFinite(start) ? { start } : null };
    }
    case 'th_open':
    case 'td_open': {
      const style = cellStyle(token);
      return { tag: token.tag, props: style ? { style } : null };
    }
    case 'footnote_block_open':
      // The notes, numbered as their references are.
      return { tag: 'ol', props: { className: 'footnotes' } };
    case 'footnote_open':
      return { tag: 'li', props: null };
    case 'heading_open':
    case 'bullet_list_open':
    case 'list_item_open':
    case 'blockquote_open':
    case 'table_open':
    case 'thead_open':
    case 'tbody_open':
    case 'tr_open':
      return { tag: token.tag, props: null };
    default:
      return null;
  }
}

/** Appends the elements of an inline token's children (text, emphasis, code, links, breaks) to `into`. */
function inline(tokens: readonly Token[], into: Frame): void {
  const stack: Frame[] = [into];
  const top = () => stack[stack.length - 1]!;
  const close = () => {
    const f = stack.pop()!;
    append(top(), (key) => elementOf(f, key));
  };
  for (const t of tokens) {
    switch (t.type) {
      case 'softbreak':
        top().children.push('\n');
        break;
      case 'hardbreak':
        append(top(), (key) => createElement('br', { key }));
        break;
      case 'code_inline':
        append(top(), (key) => createElement('code', { key }, t.content));
        break;
      case 'image':
        // Not fetched: its description stands in for it.
        append(top(), (key) => createElement('span', { key, className: 'muted' }, `[image: ${plainText(t.children) || 'no description'}]`));
        break;
      case 'footnote_ref':
        append(top(), (key) => createElement('sup', { key, className: 'footnote-ref' }, `[${Number((t.meta as { id?: number } | null)?.id ?? 0) + 1}]`));
        break;
      case 'em_open':
      case 'strong_open':
      case 's_open':
        stack.push({ tag: t.tag, props: null, children: [], blocks: false });
        break;
      case 'link_open': {
        const title = t.attrGet('title');
        stack.push({ tag: 'a', props: { href: t.attrGet('href') ?? undefined, target: '_blank', rel: 'noreferrer noopener', ...(title ? { title } : {}) }, children: [], blocks: false });
        break;
      }
      case 'em_close':
      case 'strong_close':
      case 's_close':
      case 'link_close':
        if (stack.length > 1) close();
        break;
      default:
        // text and text_special (an escape); html_inline never comes (html: false); anything
        // else unknown shows as its text.
        if (t.content) top().children.push(t.content);
    }
  }
  // Unbalanced markers are closed where the text ends (markdown-it balances them; this is a guard).
  while (stack.length > 1) close();
}

/**
 * The React elements of markdown `text`. Block elements in a container are set on lines of
 * their own ("\n" text between them, and around them inside lists and quotes), as the HTML a
 * markdown renderer writes: the page's text (copy, find) keeps its line breaks.
 */
function render(text: string): ReactNode[] {
  const tokens = parser.parse(text, {});
  const root: Frame = { tag: '', props: null, children: [], blocks: false };
  const stack: Frame[] = [root];
  const top = () => stack[stack.length - 1]!;
  const addBlock = (f: Frame) => {
    const parent = top();
    if (!NO_TEXT_INSIDE.has(parent.tag) && (parent !== root || parent.children.length > 0)) parent.children.push('\n');
    parent.blocks = true;
    append(parent, (key) => elementOf(f, key));
  };
  // The list item whose first text may be a task's box ("[ ] ", "[x] "): only while nothing
  // but its first paragraph has come.
  let taskItem: { item: Frame; list: Frame } | null = null;
  // For each open token, whether it opened an element (a tight list's paragraph does not).
  const opened: boolean[] = [];
  for (const t of tokens) {
    if (taskItem && t.type !== 'paragraph_open' && t.type !== 'inline') taskItem = null;
    if (t.nesting === 1) {
      const open = openBlock(t);
      opened.push(open !== null);
      if (!open) continue;
      const frame: Frame = { tag: open.tag, props: open.props, children: [], blocks: false };
      if (t.type === 'list_item_open') taskItem = { item: frame, list: top() };
      stack.push(frame);
    } else if (t.nesting === -1) {
      if (!opened.pop() || stack.length === 1) continue;
      const f = stack.pop()!;
      if (f.blocks && !NO_TEXT_INSIDE.has(f.tag)) f.children.push('\n');
      addBlock(f);
    } else if (t.type === 'inline') {
      const into = top();
      const from = into.children.length;
      inline(t.children ?? [], into);
      const first = into.children[from];
      const task = taskItem && typeof first === 'string' ? TASK.exec(first) : null;
      if (task && taskItem && typeof first === 'string') {
        // The box goes where the bullet would be (agents.css), its text after it.
        taskItem.item.props = { ...taskItem.item.props, className: 'task-list-item' };
        taskItem.list.props = { ...taskItem.list.props, className: 'contains-task-list' };
        const box = createElement('input', { key: 'task', type: 'checkbox', disabled: true, readOnly: true, checked: task[1] !== ' ' });
        into.children.splice(from, 1, box, ' ', first.slice(task[0].length));
      }
      taskItem = null;
    } else if (t.type === 'fence' || t.type === 'code_block') {
      const lang = t.type === 'fence' ? t.info.trim().split(/\s+/)[0] : '';
      addBlock({ tag: 'pre', props: null, children: [createElement('code', { key: 0, ...(lang ? { className: `language-${lang}` } : {}) }, t.content)], blocks: false });
    } else if (t.type === 'hr') {
      addBlock({ tag: 'hr', props: null, children: [], blocks: false });
    }
    // footnote_anchor (a link back to the reference) is left out: the app's addresses are its routes.
  }
  return root.children;
}

/** Texts whose rendered tree is kept: a session's blocks are rendered again each time it is shown. */
const CACHED_TEXTS = 600;
/** Longer texts are rendered each time (a tree per megabyte of output is not worth keeping). */
const CACHED_TEXT_MAX_CHARS = 64 * 1024;
const cache = new Map<string, ReactElement>();

/**
 * The React tree of `text` as markdown, the same element for the same text while it is cached
 * (least recently used first out): switching back to a session shows its blocks without
 * parsing them again.
 */
export function markdownTree(text: string, keep = true): ReactElement {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const tree = createElement(Fragment, null, render(text));
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

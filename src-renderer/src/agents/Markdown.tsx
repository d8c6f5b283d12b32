import { createElement, Fragment, memo, type CSSProperties, type ReactElement, type ReactNode } from 'react';
import MarkdownIt, { type Token } from 'markdown-it';
import footnote from 'markdown-it-footnote';

/**
 * Model output as markdown: CommonMark with GFM's tables, strikethrough, task lists, footnotes
 * and autolinks, parsed by markdown-it and built into React elements here (no HTML string ever
 * goes into the page). Raw HTML is not parsed (`html: false`: it stays text), links open outside
 * the app (markdown-it keeps no `javascript:`, `vbscript:`, `file:` or `data:` link), and images
 * are not fetched: nothing a model writes can load content.
 *
 * markdown-it rather than react-markdown (micromark): an answer of a list, a code block and a
 * table took 2–3 ms there and 0.1–0.2 ms here, paid for each block a session shows the first
 * time and for a streaming answer at each delta (docs/performance-scale.md).
 */
const parser = new MarkdownIt({ html: false, linkify: true }).use(footnote);
// Only what has a scheme (https://…, mailto:) or is an e-mail address becomes a link: fuzzy
// links would turn file names into web addresses ("README.md" is a domain of Moldova).
parser.linkify.set({ fuzzyLink: false });

/** An element being built: its tag, its props, the children so far. */
interface Frame {
  tag: string;
  props: Record<string, unknown> | null;
  children: ReactNode[];
  /** A block element is among the children: they are set on lines of their own (below). */
  blocks: boolean;
}

/** The alignment of a table cell, from markdown-it's `style="text-align:…"`. */
function cellStyle(token: Token): CSSProperties | undefined {
  const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet('style') ?? ''))?.[1];
  return align ? { textAlign: align as CSSProperties['textAlign'] } : undefined;
}

const TASK = /^\[([ xX])\][ \t]/;

/** The plain text of inline tokens (an image's description). */
function plainText(tokens: readonly Token[] | null): string {
  return (tokens ?? []).map((t) => (t.type === 'image' ? plainText(t.children) : t.content)).join('');
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

/** The elements of an inline token's children (text, emphasis, code, links, breaks). */
function inline(tokens: readonly Token[]): ReactNode[] {
  const root: Frame = { tag: '', props: null, children: [], blocks: false };
  const stack: Frame[] = [root];
  const top = () => stack[stack.length - 1]!;
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
        if (t.content) top().children.push(t.content);
        break;
      case 'softbreak':
        top().children.push('\n');
        break;
      case 'hardbreak':
        top().children.push(createElement('br'));
        break;
      case 'code_inline':
        top().children.push(createElement('code', null, t.content));
        break;
      case 'image':
        // Not fetched: its description stands in for it.
        top().children.push(createElement('span', { className: 'muted' }, `[image: ${plainText(t.children) || 'no description'}]`));
        break;
      case 'footnote_ref':
        top().children.push(createElement('sup', { className: 'footnote-ref' }, `[${Number((t.meta as { id?: number } | null)?.id ?? 0) + 1}]`));
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
      case 'link_close': {
        if (stack.length === 1) break;
        const f = stack.pop()!;
        top().children.push(createElement(f.tag, f.props, ...f.children));
        break;
      }
      default:
        // html_inline never comes (html: false); anything else unknown shows as its text.
        if (t.content) top().children.push(t.content);
    }
  }
  // Unbalanced markers are closed where the text ends (markdown-it balances them; this is a guard).
  while (stack.length > 1) {
    const f = stack.pop()!;
    top().children.push(createElement(f.tag, f.props, ...f.children));
  }
  return root.children;
}

/**
 * The React elements of markdown `text`. Block elements in a container are set on lines of
 * their own ("\n" text between them, and around them inside lists, quotes and tables), as the
 * HTML a markdown renderer writes: the page's text (copy, find) keeps its line breaks.
 */
function render(text: string): ReactNode[] {
  const tokens = parser.parse(text, {});
  const root: Frame = { tag: '', props: null, children: [], blocks: false };
  const stack: Frame[] = [root];
  const top = () => stack[stack.length - 1]!;
  const addBlock = (el: ReactNode) => {
    const parent = top();
    if (parent !== root || parent.children.length > 0) parent.children.push('\n');
    parent.blocks = true;
    parent.children.push(el);
  };
  // The list item whose first line may be a task's box ("[ ] ", "[x] ").
  let taskItem: { item: Frame; list: Frame } | null = null;
  // For each open token, whether it opened an element (a tight list's paragraph does not).
  const opened: boolean[] = [];
  for (const t of tokens) {
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
      if (f.blocks) f.children.push('\n');
      addBlock(createElement(f.tag, f.props, ...f.children));
    } else if (t.type === 'inline') {
      const nodes = inline(t.children ?? []);
      // A list item's first text: "[ ] " or "[x] " makes it a task (a box that cannot be ticked here).
      const inItem = taskItem !== null && (top() === taskItem.item || stack[stack.length - 2] === taskItem.item);
      const task = inItem && typeof nodes[0] === 'string' ? TASK.exec(nodes[0]) : null;
      if (task && taskItem) {
        taskItem.item.props = { ...taskItem.item.props, className: 'task-list-item' };
        taskItem.list.props = { ...taskItem.list.props, className: 'contains-task-list' };
        nodes[0] = (nodes[0] as string).slice(task[0].length);
        top().children.push(createElement('input', { type: 'checkbox', disabled: true, defaultChecked: task[1] !== ' ' }), ' ', ...nodes);
      } else {
        top().children.push(...nodes);
      }
      taskItem = null;
    } else if (t.type === 'fence' || t.type === 'code_block') {
      const lang = t.type === 'fence' ? t.info.trim().split(/\s+/)[0] : '';
      addBlock(createElement('pre', null, createElement('code', lang ? { className: `language-${lang}` } : null, t.content)));
    } else if (t.type === 'hr') {
      addBlock(createElement('hr'));
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
  const tree = createElement(Fragment, null, ...render(text));
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

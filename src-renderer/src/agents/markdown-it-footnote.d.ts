// markdown-it-footnote ships no types: it is a markdown-it plugin (`md.use(footnote)`).
declare module 'markdown-it-footnote' {
  import type { MarkdownIt } from 'markdown-it';
  const footnote: (md: MarkdownIt) => void;
  export default footnote;
}

import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown, markdownTree } from '../../../src-renderer/src/agents/Markdown';

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe('Markdown', () => {
  it('renders model output safely: GFM tables, links out of the app, no images, no raw HTML', () => {
    const out = html('| a | b |\n|---|---|\n| 1 | 2 |\n\n[site](https://example.com) ![logo](https://example.com/x.png) <script>alert(1)</script>');
    expect(out).toContain('<table>');
    expect(out).toContain('<a href="https://example.com" target="_blank" rel="noreferrer noopener">site</a>');
    expect(out).toContain('[image: logo]');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('<script>');
  });

  it('keeps the tree of a text shown again, and renders it the same', () => {
    const text = 'Turn 7: **done**\n\n- one\n- two';
    const first = markdownTree(text);
    expect(markdownTree(text)).toBe(first);
    expect(html(text)).toBe('<div class="markdown"><p>Turn 7: <strong>done</strong></p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul></div>');
    // Another text, another tree.
    expect(markdownTree(`${text}\n- three`)).not.toBe(first);
  });

  it('keeps a bounded number of trees, least recently shown out first, and none of a very long text', () => {
    const kept = markdownTree('kept while shown');
    const dropped = markdownTree('shown once, long ago');
    for (let i = 0; i < 600; i++) {
      markdownTree(`filler ${i}`);
      // Shown now and then: stays.
      if (i % 100 === 0) expect(markdownTree('kept while shown')).toBe(kept);
    }
    expect(markdownTree('kept while shown')).toBe(kept);
    expect(markdownTree('shown once, long ago')).not.toBe(dropped);
    const long = 'x'.repeat(70_000);
    expect(markdownTree(long)).not.toBe(markdownTree(long));
  });

  it('keeps nothing of text still streaming in, and what it had keeps', () => {
    const done = markdownTree('a finished answer');
    for (let i = 0; i < 700; i++) markdownTree(`a streaming answer, ${i} words so far`, false);
    expect(markdownTree('a streaming answer, 5 words so far', false)).not.toBe(markdownTree('a streaming answer, 5 words so far', false));
    expect(markdownTree('a finished answer')).toBe(done);
  });
});

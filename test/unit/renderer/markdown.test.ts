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

  it('drops links that could run or read something, and links only what has a scheme or is an address', () => {
    const out = html('[run](javascript:alert(1)) [file](file:///etc/passwd) [data](data:text/html,x) see README.md, main.py and https://example.com/a?b=1 or mail a@example.com');
    expect(out).not.toMatch(/href="(javascript|file|data):/);
    expect(out).toContain('[run](javascript:alert(1))');
    // File names are not web addresses.
    expect(out).toContain('see README.md, main.py and ');
    expect(out).toContain('<a href="https://example.com/a?b=1" target="_blank" rel="noreferrer noopener">https://example.com/a?b=1</a>');
    expect(out).toContain('<a href="mailto:a@example.com" target="_blank" rel="noreferrer noopener">a@example.com</a>');
    // Only web and mail addresses are links; anything else stays its text.
    const others = html('[png](data:image/png;base64,iVBORw0KGgo=) <ms-msdt:/id%20x> [share](smb://host/share) ftp://host/x //example.com/x [rel](docs/a.md) [JS](JaVaScRiPt:alert(1)) <javascript:alert(1)>');
    expect(others).not.toContain('<a');
    expect(others).toContain('[png](data:image/png;base64,iVBORw0KGgo=)');
  });

  it('renders a very long text whole (its children are not spread into one call)', () => {
    const lines = 210_000;
    const out = html(Array.from({ length: lines }, (_, i) => `line ${i}`).join('\n'));
    expect(out).toContain(`line ${lines - 1}</p>`);
  });

  it('makes a box only of a list item\'s first text: mixed and loose lists, escapes, after a code block', () => {
    expect(html('- [ ] task\n- plain')).toBe('<div class="markdown"><ul class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" disabled="" readOnly=""/> task</li>\n<li>plain</li>\n</ul></div>');
    // Loose: the box is in the item's first paragraph (agents.css puts it where the bullet was).
    expect(html('- [x] loose\n\n- plain')).toContain('<li class="task-list-item">\n<p><input type="checkbox" disabled="" readOnly="" checked=""/> loose</p>\n</li>');
    expect(html('- \\[ ] escaped')).not.toContain('checkbox');
    expect(html('- ```\n  code\n  ```\n\n  [ ] after the code')).not.toContain('checkbox');
    expect(html('![a\nchart](https://example.com/c.png)')).toContain('[image: a chart]');
  });

  it('keeps raw HTML as text, and an image as its description only', () => {
    const out = html('<img src=x onerror=alert(1)> <b>bold?</b>\n\n![a *chart* of it](https://example.com/c.png) ![](https://example.com/d.png)');
    expect(out).not.toContain('<img');
    expect(out).not.toContain('<b>');
    expect(out).toContain('&lt;b&gt;bold?&lt;/b&gt;');
    // Block-level HTML too: shown as the text it is, not dropped.
    expect(html('<details>\n<summary>more</summary>\n</details>')).toBe('<div class="markdown"><p>&lt;details&gt;\n&lt;summary&gt;more&lt;/summary&gt;\n&lt;/details&gt;</p></div>');
    expect(out).toContain('<span class="muted">[image: a chart of it]</span>');
    expect(out).toContain('<span class="muted">[image: no description]</span>');
  });

  it('renders GFM as the transcript shows it: tasks, strikethrough, aligned cells, footnotes, code with its language', () => {
    expect(html('- [ ] to do\n- [x] done **now**\n- plain')).toBe(
      '<div class="markdown"><ul class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" disabled="" readOnly=""/> to do</li>\n' +
        '<li class="task-list-item"><input type="checkbox" disabled="" readOnly="" checked=""/> done <strong>now</strong></li>\n<li>plain</li>\n</ul></div>',
    );
    expect(html('~~gone~~ and a  \nbreak')).toBe('<div class="markdown"><p><s>gone</s> and a<br/>break</p></div>');
    expect(html('| a | b |\n|:--|--:|\n| 1 | 2 |')).toBe(
      // No text inside a table's rows and sections, not even a line break (React refuses it there).
      '<div class="markdown"><table><thead><tr><th style="text-align:left">a</th><th style="text-align:right">b</th></tr></thead><tbody><tr><td style="text-align:left">1</td><td style="text-align:right">2</td></tr></tbody></table></div>',
    );
    expect(html('A claim[^1].\n\n[^1]: Its source.')).toBe('<div class="markdown"><p>A claim<sup class="footnote-ref">[1]</sup>.</p>\n<ol class="footnotes">\n<li>\n<p>Its source.</p>\n</li>\n</ol></div>');
    expect(html('```ts title\nconst a = 1 < 2;\n```\n\n    indented\n\n3) three\n4) four')).toBe(
      '<div class="markdown"><pre><code class="language-ts">const a = 1 &lt; 2;\n</code></pre>\n<pre><code>indented\n</code></pre>\n<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol></div>',
    );
    expect(html('> quoted\n\n1. loose\n\n   still one\n2. two\n   - nested')).toBe(
      '<div class="markdown"><blockquote>\n<p>quoted</p>\n</blockquote>\n<ol>\n<li>\n<p>loose</p>\n<p>still one</p>\n</li>\n<li>\n<p>two</p>\n<ul>\n<li>nested</li>\n</ul>\n</li>\n</ol></div>',
    );
  });

  it("renders this project's own documents whole: every heading, code block and table", () => {
    const docs = import.meta.glob<string>('../../../docs/*.md', { query: '?raw', import: 'default', eager: true });
    expect(Object.keys(docs).length).toBeGreaterThan(10);
    for (const [f, text] of Object.entries(docs)) {
      // Counted from the source: ATX headings, fences and table delimiter rows outside fences.
      let fenced = false;
      let headings = 0;
      let fences = 0;
      let tables = 0;
      for (const line of text.split('\n')) {
        if (/^ {0,3}(```|~~~)/.test(line)) {
          if (!fenced) fences++;
          fenced = !fenced;
        } else if (!fenced && /^ {0,3}#{1,6} /.test(line)) headings++;
        else if (!fenced && /^ {0,3}\|? *:?-{3,}:? *(\| *:?-{3,}:? *)+\|? *$/.test(line)) tables++;
      }
      const out = html(text);
      expect({ f, headings: out.match(/<h[1-6]>/g)?.length ?? 0, fences: out.match(/<pre>/g)?.length ?? 0, tables: out.match(/<table>/g)?.length ?? 0 }).toEqual({ f, headings, fences, tables });
    }
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

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * The shared glyph widths (src-renderer/src/terminals/glyph-widths.ts) on a class shaped like
 * xterm's WidthCache: each test gets a fresh module and a fresh class, so patching is seen from
 * its start. The real class in the page is covered by test/e2e/idle-and-switch.spec.ts.
 */

type Glyphs = typeof import('../../../src-renderer/src/terminals/glyph-widths');

/** xterm's WidthCache reduced to what matters here: a per-instance cache in front of `_measure`. */
function makeClass(widthOf: (cache: { _font: string; _fontSize: number }, c: string, variant: number) => number) {
  const measured: Array<{ cache: object; c: string; variant: number }> = [];
  class WidthCache {
    _flat = new Map<string, number>();
    _font = '';
    _fontSize = 0;
    _weight = 'normal';
    _weightBold = 'bold';
    constructor() {
      this.clear();
    }
    clear(): void {
      this._flat = new Map();
    }
    setFont(font: string, fontSize: number, weight: string, weightBold: string): void {
      if (font === this._font && fontSize === this._fontSize && weight === this._weight && weightBold === this._weightBold) return;
      Object.assign(this, { _font: font, _fontSize: fontSize, _weight: weight, _weightBold: weightBold });
      this.clear();
    }
    get(c: string, bold = false, italic = false): number {
      const key = `${c}${bold ? 'B' : ''}${italic ? 'I' : ''}`;
      const known = this._flat.get(key);
      if (known !== undefined) return known;
      const w = this._measure(c, (bold ? 1 : 0) | (italic ? 2 : 0));
      if (w > 0) this._flat.set(key, w);
      return w;
    }
    _measure(c: string, variant: number): number {
      measured.push({ cache: this, c, variant });
      return widthOf(this, c, variant);
    }
  }
  const make = (font = 'Mono', size = 13) => {
    const w = new WidthCache();
    w.setFont(font, size, 'normal', 'bold');
    return w;
  };
  return { WidthCache, make, measured };
}

/** A monospace font: every glyph as wide as "W", bold a little wider, a size scales it. */
const mono = (cache: { _fontSize: number }, c: string, variant: number) => (c === '中' ? 2 : 1) * cache._fontSize * 0.6 + (variant & 1 ? 0.25 : 0);

let glyphs: Glyphs;
beforeEach(async () => {
  vi.resetModules();
  glyphs = await import('../../../src-renderer/src/terminals/glyph-widths');
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('glyph widths shared across terminals', () => {
  it('a second terminal of the same font measures only its reference, and gets the same widths', () => {
    const { make, measured } = makeClass(mono);
    const a = make();
    expect(glyphs.shareWidthCacheClass(a, () => 1)).toBe(true);
    const text = [...'hello, world 中'];
    const first = text.map((c) => a.get(c));
    const fromA = measured.filter((m) => m.cache === a).length;
    expect(fromA).toBeGreaterThanOrEqual(new Set(text).size);

    const b = make();
    const second = text.map((c) => b.get(c));
    expect(second).toEqual(first);
    // "W" once, nothing of the text.
    expect(measured.filter((m) => m.cache === b).map((m) => m.c)).toEqual(['W']);
  });

  it('keeps bold, italic and regular apart', () => {
    const { make, measured } = makeClass(mono);
    const a = make();
    glyphs.shareWidthCacheClass(a, () => 1);
    const regular = a.get('x');
    const bold = a.get('x', true);
    expect(bold).not.toBe(regular);
    const b = make();
    expect(b.get('x', true)).toBe(bold);
    expect(b.get('x')).toBe(regular);
    expect(b.get('x', false, true)).toBe(regular);
    // The italic had not been measured by anyone: b measured it.
    expect(measured.filter((m) => m.cache === b).map((m) => `${m.c}${m.variant}`)).toEqual(['W0', 'x2']);
  });

  it('keeps fonts, sizes and pixel ratios apart', () => {
    const { make, measured } = makeClass(mono);
    let ratio = 1;
    const a = make('Mono', 13);
    glyphs.shareWidthCacheClass(a, () => ratio);
    a.get('x');
    const bigger = make('Mono', 20);
    expect(bigger.get('x')).toBeCloseTo(12);
    const other = make('Other', 13);
    other.get('x');
    expect(measured.filter((m) => m.cache === other).map((m) => m.c)).toEqual(['W', 'x']);
    ratio = 2;
    const zoomed = make('Mono', 13);
    zoomed.get('x');
    expect(measured.filter((m) => m.cache === zoomed).map((m) => m.c)).toEqual(['W', 'x']);
  });

  it('a terminal whose font draws differently (a fallback while the font loads) does not take the others\' widths', () => {
    let loaded = false;
    // Before the font loads, the page draws a fallback 10 % wider.
    const { make } = makeClass((cache, c, v) => mono(cache, c, v) * (loaded ? 1 : 1.1));
    const early = make();
    glyphs.shareWidthCacheClass(early, () => 1);
    const fallback = early.get('x');
    loaded = true;
    const late = make();
    expect(late.get('x')).toBeCloseTo(13 * 0.6);
    expect(late.get('x')).not.toBeCloseTo(fallback);
  });

  it('a cleared cache (xterm: the cell size or pixel ratio changed) measures its reference again before sharing', () => {
    let scale = 1;
    const { make, measured } = makeClass((cache, c, v) => mono(cache, c, v) * scale);
    const a = make();
    glyphs.shareWidthCacheClass(a, () => 1);
    a.get('x');
    // The font's metrics change (e.g. it finished loading); xterm clears the caches it measured.
    scale = 1.5;
    a.clear();
    measured.length = 0;
    expect(a.get('x')).toBeCloseTo(13 * 0.6 * 1.5);
    expect(measured.map((m) => m.c)).toEqual(['W', 'x']);
  });

  it('never keeps a width of 0 (a pane not laid out), and shares nothing while the reference is 0', () => {
    let laidOut = false;
    const { make, measured } = makeClass((cache, c, v) => (laidOut ? mono(cache, c, v) : 0));
    const hidden = make();
    glyphs.shareWidthCacheClass(hidden, () => 1);
    expect(hidden.get('x')).toBe(0);
    expect(glyphs.glyphWidthTables.size()).toBe(0);
    laidOut = true;
    measured.length = 0;
    const shown = make();
    expect(shown.get('x')).toBeCloseTo(13 * 0.6);
    expect(measured.map((m) => m.c)).toEqual(['W', 'x']);
    expect(glyphs.glyphWidthTables.size()).toBe(1);
  });

  it('a table starts again past its size limit', () => {
    const { make } = makeClass(mono);
    const a = make();
    glyphs.shareWidthCacheClass(a, () => 1);
    for (let i = 0; i < glyphs.MAX_SHARED_WIDTHS + 5; i++) a.get(String.fromCodePoint(0x4e00 + i));
    expect(glyphs.glyphWidthTables.size()).toBeLessThanOrEqual(glyphs.MAX_SHARED_WIDTHS);
    expect(glyphs.glyphWidthTables.size()).toBe(5);
  });

  it('drops every table when the page finishes loading a font', async () => {
    const fonts = new EventTarget();
    vi.stubGlobal('document', { fonts });
    vi.resetModules();
    glyphs = await import('../../../src-renderer/src/terminals/glyph-widths');
    const { make } = makeClass(mono);
    const a = make();
    glyphs.shareWidthCacheClass(a, () => 1);
    a.get('x');
    expect(glyphs.glyphWidthTables.size()).toBe(1);
    fonts.dispatchEvent(new Event('loadingdone'));
    expect(glyphs.glyphWidthTables.size()).toBe(0);
  });

  it('patches nothing when the cache is not shaped like xterm\'s', () => {
    const { WidthCache, make } = makeClass(mono);
    const original = WidthCache.prototype._measure;
    const own = make();
    (own as unknown as { _measure: unknown })._measure = () => 1;
    expect(glyphs.shareWidthCacheClass(own, () => 1)).toBe(false);
    expect(glyphs.shareWidthCacheClass({ _font: 'x', _fontSize: 1 }, () => 1)).toBe(false);
    expect(glyphs.shareWidthCacheClass(null, () => 1)).toBe(false);
    expect(glyphs.shareGlyphWidths({ _core: { _renderService: { _renderer: { value: {} } } } })).toBe(false);
    expect(WidthCache.prototype._measure).toBe(original);
    // Through an opened terminal's DOM renderer, as terminal-view.ts calls it.
    const term = { _core: { _renderService: { _renderer: { value: { _widthCache: make() } } } } };
    expect(glyphs.shareGlyphWidths(term)).toBe(true);
    expect(WidthCache.prototype._measure).not.toBe(original);
  });
});

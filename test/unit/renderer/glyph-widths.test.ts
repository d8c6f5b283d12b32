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
    // "W" as wide at every size and in both fonts: only the key's own fields tell them apart.
    const { make, measured } = makeClass((cache, c, v) => (c === 'W' ? 8 : mono(cache, c, v)));
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
    // The cell size changed (a zoom: xterm's handleCharSizeChanged clears the cache).
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

  it('shares nothing while the page loads a font (a fallback may have the same "W"), and measures references again once it has', async () => {
    const fonts = Object.assign(new EventTarget(), { status: 'loaded' });
    vi.stubGlobal('document', { fonts });
    vi.resetModules();
    glyphs = await import('../../../src-renderer/src/terminals/glyph-widths');
    // The fallback has the loaded font's "W" but draws box-drawing characters narrower.
    let loaded = false;
    const { make, measured } = makeClass((cache, c, v) => (c === '─' && !loaded ? 5 : mono(cache, c, v)));
    const early = make();
    glyphs.shareWidthCacheClass(early, () => 1);
    fonts.status = 'loading';
    expect(early.get('─')).toBe(5);
    expect(glyphs.glyphWidthTables.size()).toBe(0);
    const alsoEarly = make();
    alsoEarly.get('─');
    expect(measured.filter((m) => m.cache === alsoEarly).map((m) => m.c)).toEqual(['─']);

    loaded = true;
    fonts.status = 'loaded';
    fonts.dispatchEvent(new Event('loadingdone'));
    const late = make();
    expect(late.get('─')).toBeCloseTo(13 * 0.6);
    // A cache that measured its reference before the load measures it again.
    const before = make();
    before.get('a');
    fonts.dispatchEvent(new Event('loadingdone'));
    expect(glyphs.glyphWidthTables.size()).toBe(0);
    measured.length = 0;
    before.get('b');
    expect(measured.map((m) => m.c)).toEqual(['W', 'b']);
  });

  it('keeps the weights apart, and at most a few tables', () => {
    const { WidthCache, measured } = makeClass(mono);
    const light = new WidthCache();
    light.setFont('Mono', 13, '300', 'bold');
    glyphs.shareWidthCacheClass(light, () => 1);
    light.get('x');
    const normal = new WidthCache();
    normal.setFont('Mono', 13, 'normal', 'bold');
    normal.get('x');
    expect(measured.filter((m) => m.cache === normal).map((m) => m.c)).toEqual(['W', 'x']);
    for (let size = 10; size < 10 + glyphs.MAX_SHARED_TABLES + 3; size++) {
      const c = new WidthCache();
      c.setFont('Mono', size, 'normal', 'bold');
      c.get('x');
    }
    expect(glyphs.glyphWidthTables.keys().length).toBe(glyphs.MAX_SHARED_TABLES);
  });

  it('patches nothing when the cache is not shaped like xterm\'s', () => {
    const { WidthCache, make } = makeClass(mono);
    const original = WidthCache.prototype._measure;
    const own = make();
    (own as unknown as { _measure: unknown })._measure = () => 1;
    expect(glyphs.shareWidthCacheClass(own, () => 1)).toBe(false);
    expect(glyphs.shareWidthCacheClass({ _font: 'x', _fontSize: 1 }, () => 1)).toBe(false);
    // A field of the key renamed in another xterm: nothing shared.
    const renamed = make();
    delete (renamed as unknown as { _weightBold?: string })._weightBold;
    expect(glyphs.shareWidthCacheClass(renamed, () => 1)).toBe(false);
    expect(glyphs.shareWidthCacheClass(null, () => 1)).toBe(false);
    expect(glyphs.shareGlyphWidths({ _core: { _renderService: { _renderer: { value: {} } } } })).toBe(false);
    expect(WidthCache.prototype._measure).toBe(original);
    // Through an opened terminal's DOM renderer, as terminal-view.ts calls it.
    const term = { _core: { _renderService: { _renderer: { value: { _widthCache: make() } } } } };
    expect(glyphs.shareGlyphWidths(term)).toBe(true);
    expect(WidthCache.prototype._measure).not.toBe(original);
  });
});

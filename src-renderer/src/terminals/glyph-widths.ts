/**
 * Glyph widths measured once per page, not once per terminal.
 *
 * xterm's DOM renderer measures the width of every character it draws (its `WidthCache`: the
 * character 32 times in a hidden span, then `offsetWidth`, a forced layout each) and keeps the
 * result in that terminal's renderer. Every terminal shown for the first time, and every pane
 * that falls back from WebGL, measured the same characters of the same font again: 44 forced
 * layouts, 9–14 ms of a 5,000-line terminal's first show here (docs/performance-scale.md).
 * xterm's own source marks the cache "a shared API across terminals is needed".
 *
 * This shares what is measured across the page's terminals. The class is xterm's own (not
 * exported, so it is reached through the first DOM renderer seen); its `_measure` consults a
 * table kept per font (family, size, both weights, pixel ratio, and the cache's own width of
 * "W") and measures only what no terminal has measured yet. Each cache measures that "W" once
 * after each time xterm clears it (a new font, pixel ratio or cell size: the font's metrics may
 * have changed), so a cache that draws the font differently (a fallback before the font loaded)
 * keeps to a table of its own. All tables go when the page finishes loading a font. A width of 0
 * (a span not laid out) is never kept, as xterm does not keep it either. The per-terminal caches
 * in front of it are xterm's, unchanged. Should xterm's internals change shape, nothing is
 * patched and each terminal measures for itself as before.
 */

/** The parts of xterm's WidthCache (src/browser/renderer/dom/WidthCache.ts) used here. */
export interface WidthCacheLike {
  _font: string;
  _fontSize: number;
  _weight: unknown;
  _weightBold: unknown;
  _measure(c: string, variant: number): number;
  clear(): void;
  setFont(font: string, fontSize: number, weight: unknown, weightBold: unknown): void;
}

/** Entries kept per font at most; beyond it the font's table starts again (xterm's own caches are unbounded). */
export const MAX_SHARED_WIDTHS = 20_000;

const tables = new Map<string, Map<string, number>>();
const patched = new WeakSet<object>();
/**
 * Each cache's own width of "W" (regular), measured once after each of its clears: part of the
 * key, so a cache whose font renders differently (a fallback before the font loaded, another
 * zoom) never takes another's widths.
 */
const references = new WeakMap<object, number>();
/** The reference character: the one xterm itself measures for the default letter spacing. */
const REFERENCE = 'W';
let fontsWatched = false;

const fontKey = (c: WidthCacheLike, ratio: number, reference: number) => `${c._font}|${c._fontSize}|${String(c._weight)}|${String(c._weightBold)}|${ratio}|${reference}`;

function looksLikeWidthCache(x: unknown): x is WidthCacheLike {
  const c = x as Partial<WidthCacheLike> | null;
  return !!c && typeof c === 'object' && typeof c._measure === 'function' && typeof c.clear === 'function' && typeof c.setFont === 'function' && typeof c._font === 'string' && typeof c._fontSize === 'number';
}

/**
 * Makes every instance of `cache`'s class share its measurements (once per class). Returns
 * whether the class is shared now. `ratio` reads the page's pixel ratio (a parameter for tests).
 */
export function shareWidthCacheClass(cache: unknown, ratio: () => number = () => globalThis.devicePixelRatio ?? 1): boolean {
  if (!looksLikeWidthCache(cache)) return false;
  const proto = Object.getPrototypeOf(cache) as WidthCacheLike | null;
  if (!proto || proto === Object.prototype) return false;
  if (patched.has(proto)) return true;
  // The three are the class's methods (an instance's own would shadow the patched prototype).
  for (const name of ['_measure', 'clear', 'setFont'] as const) {
    if (!Object.hasOwn(proto, name) || typeof proto[name] !== 'function' || Object.hasOwn(cache, name)) return false;
  }
  const measure = proto._measure;
  const clear = proto.clear;
  const usable = (w: number) => w > 0 && Number.isFinite(w);
  proto._measure = function (this: WidthCacheLike, c: string, variant: number): number {
    let reference = references.get(this);
    if (reference === undefined) {
      reference = measure.call(this, REFERENCE, 0);
      // Not laid out (a hidden pane): nothing to compare with, so nothing is shared.
      if (!usable(reference)) return measure.call(this, c, variant);
      references.set(this, reference);
      if (c === REFERENCE && variant === 0) return reference;
    }
    const key = fontKey(this, ratio(), reference);
    let table = tables.get(key);
    const entry = `${variant}:${c}`;
    const known = table?.get(entry);
    if (known !== undefined) return known;
    const width = measure.call(this, c, variant);
    if (usable(width)) {
      if (!table || table.size >= MAX_SHARED_WIDTHS) tables.set(key, (table = new Map()));
      table.set(entry, width);
    }
    return width;
  };
  proto.clear = function (this: WidthCacheLike): void {
    // A new font, pixel ratio or cell size (xterm's reasons to clear): this cache measures its
    // reference again before it takes anything from a table.
    references.delete(this);
    clear.call(this);
  };
  patched.add(proto);
  watchFonts();
  return true;
}

/** A font finishing loading may change any family's metrics (a fallback was measured until then). */
function watchFonts(): void {
  if (fontsWatched) return;
  fontsWatched = true;
  const fonts = (globalThis as { document?: { fonts?: EventTarget } }).document?.fonts;
  fonts?.addEventListener?.('loadingdone', () => tables.clear());
}

/** The DOM renderer's width cache of an opened xterm Terminal, or null (WebGL drawing, or xterm's internals changed). */
function widthCacheOf(term: unknown): unknown {
  type Internals = { _core?: { _renderService?: { _renderer?: { value?: { _widthCache?: unknown } } } } };
  return (term as Internals)?._core?._renderService?._renderer?.value?._widthCache ?? null;
}

/**
 * Call after `term.open()`, while the DOM renderer it made is in place: from then on every
 * terminal of the page shares glyph widths. Does nothing when they already do, or when the
 * renderer is not xterm's DOM renderer.
 */
export function shareGlyphWidths(term: unknown): boolean {
  return shareWidthCacheClass(widthCacheOf(term));
}

/** For tests: the widths kept for one font key, and a reset. */
export const glyphWidthTables = {
  size: (key?: string) => (key === undefined ? [...tables.values()].reduce((n, t) => n + t.size, 0) : (tables.get(key)?.size ?? 0)),
  keys: () => [...tables.keys()],
  reset: () => tables.clear(),
};

/**
 * Glyph widths measured once per page, not once per terminal.
 *
 * xterm's DOM renderer measures the width of every character it draws (its `WidthCache`: the
 * character 32 times in a hidden span, then `offsetWidth`, a forced layout each) and keeps the
 * result in that terminal's renderer. Every terminal shown for the first time, and every pane
 * that falls back from WebGL, measured the same characters of the same font again: 44 forced
 * layouts, a median 9.1 ms of a 5,000-line terminal's first show here (docs/performance-scale.md).
 * xterm's own source marks the cache "a shared API across terminals is needed".
 *
 * This shares what is measured across the page's terminals. The class is xterm's own (not
 * exported, so it is reached through the first DOM renderer seen); its `_measure` consults a
 * table kept per font (family, size, both weights, pixel ratio, and the cache's own width of
 * "W") and measures only what no terminal has measured yet. Each cache measures that "W" once
 * after each time xterm clears it (a new font, pixel ratio or cell size), so a cache drawing
 * the font at another size keeps to a table of its own. A fallback font can have the same "W"
 * as the font it stands for (most monospace fonts advance about 0.6 em), so the reference alone
 * cannot tell them apart: while the page is loading a font nothing is shared (each cache
 * measures for itself, as before), and once it has, every table and reference is dropped.
 * A width of 0 (a span not laid out) is never kept, as xterm does not keep it either. The
 * per-terminal caches in front of it are xterm's, unchanged. Should xterm's internals change
 * shape, nothing is patched and each terminal measures for itself as before.
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

/** Entries kept per table at most; beyond it the table starts again (xterm's own caches are unbounded). */
export const MAX_SHARED_WIDTHS = 20_000;
/** Tables kept at most (fonts, sizes, zoom levels seen); the one made longest ago goes first. */
export const MAX_SHARED_TABLES = 8;

const tables = new Map<string, Map<string, number>>();
const patched = new WeakSet<object>();
/**
 * Each cache's own width of "W" (regular), measured once after each of its clears and each
 * font load: part of the key, so a cache drawing at another size or zoom never takes another's
 * widths. `generation`: the font loads seen when it was measured.
 */
const references = new WeakMap<object, { width: number; generation: number }>();
/** Font loads finished in the page: a reference measured before one is measured again. */
let generation = 0;
/** The page's fonts, when it has any (null in tests without a document). */
let fontSet: { status?: string } | null = null;
/** The reference character: the one xterm itself measures for the default letter spacing. */
const REFERENCE = 'W';

const fontKey = (c: WidthCacheLike, ratio: number, reference: number) => JSON.stringify([c._font, c._fontSize, c._weight, c._weightBold, ratio, reference]);

function looksLikeWidthCache(x: unknown): x is WidthCacheLike {
  const c = x as Partial<WidthCacheLike> | null;
  if (!c || typeof c !== 'object') return false;
  // Every field the key is made of, so a renamed one cannot make different fonts share a table.
  const weight = (w: unknown) => typeof w === 'string' || typeof w === 'number';
  return typeof c._measure === 'function' && c._measure.length === 2 && typeof c.clear === 'function' && typeof c.setFont === 'function' && typeof c._font === 'string' && typeof c._fontSize === 'number' && weight(c._weight) && weight(c._weightBold);
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
    // A font loading: what is measured now may be its fallback's, which must not be shared.
    if (fontSet?.status === 'loading') return measure.call(this, c, variant);
    let ref = references.get(this);
    if (ref === undefined || ref.generation !== generation) {
      const width = measure.call(this, REFERENCE, 0);
      // Not laid out (a hidden pane): nothing to compare with, so nothing is shared.
      if (!usable(width)) return c === REFERENCE && variant === 0 ? width : measure.call(this, c, variant);
      references.set(this, (ref = { width, generation }));
      if (c === REFERENCE && variant === 0) return width;
    }
    const key = fontKey(this, ratio(), ref.width);
    let table = tables.get(key);
    const entry = `${variant}:${c}`;
    const known = table?.get(entry);
    if (known !== undefined) return known;
    const width = measure.call(this, c, variant);
    if (usable(width)) {
      if (!table || table.size >= MAX_SHARED_WIDTHS) {
        tables.delete(key);
        while (tables.size >= MAX_SHARED_TABLES) tables.delete(tables.keys().next().value!);
        tables.set(key, (table = new Map()));
      }
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
  if (fontSet) return;
  const fonts = (globalThis as { document?: { fonts?: EventTarget & { status?: string } } }).document?.fonts;
  if (!fonts) return;
  fontSet = fonts;
  const loaded = () => {
    generation++;
    tables.clear();
  };
  fonts.addEventListener?.('loadingdone', loaded);
  fonts.addEventListener?.('loadingerror', loaded);
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

/** For tests: the widths kept (all tables together) and the tables' keys. */
export const glyphWidthTables = {
  size: () => [...tables.values()].reduce((n, t) => n + t.size, 0),
  keys: () => [...tables.keys()],
};

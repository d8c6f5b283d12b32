/**
 * xterm's WebGL renderer for one visible pane, with the DOM renderer as the fallback. Browsers
 * cap live WebGL contexts (Chromium at 16 per page, dropping the oldest), so a context exists
 * only while its pane is visible: the pane creates it when shown and disposes it when hidden
 * or parked — at most one per visible pane, however many terminals are open.
 */

/** The parts of @xterm/addon-webgl's WebglAddon used here. */
export interface GpuAddon {
  onContextLoss(listener: () => void): unknown;
  dispose(): void;
}

/** The parts of xterm's Terminal used here. */
export interface GpuHost {
  loadAddon(addon: never): void;
}

/** Which renderer a pane draws with, and why it fell back (shown as `data-renderer` on the pane). */
export type RendererState = 'webgl' | 'dom' | 'dom-unavailable' | 'dom-context-lost';

/**
 * Loads the WebGL renderer into `term` and returns the function that disposes it. Any failure
 * (no WebGL, a blocked GPU, the context cap) leaves the DOM renderer in place; so does a lost
 * context (a GPU reset, the browser reclaiming it): the pane keeps working, only slower.
 */
export function attachGpuRenderer(term: GpuHost, create: () => GpuAddon, report: (state: RendererState) => void = () => undefined): () => void {
  let addon: GpuAddon | null = null;
  const drop = () => {
    const a = addon;
    addon = null;
    try {
      a?.dispose();
    } catch {
      // Disposing a renderer whose context is already gone may throw inside xterm; the DOM
      // renderer has taken over either way.
    }
  };
  try {
    addon = create();
    addon.onContextLoss(() => {
      drop();
      report('dom-context-lost');
    });
    term.loadAddon(addon as never);
    report('webgl');
  } catch {
    // No WebGL here: the DOM renderer stays.
    drop();
    report('dom-unavailable');
  }
  return () => {
    if (addon) report('dom');
    drop();
  };
}

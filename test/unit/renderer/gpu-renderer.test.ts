import { describe, expect, it } from 'vitest';
import { attachGpuRenderer, type GpuAddon, type RendererState } from '../../../src-renderer/src/terminals/gpu-renderer';

/** A stand-in for WebglAddon: counts live contexts, can lose its context or fail to load. */
function fakeGpu(opts: { failCreate?: boolean; failLoad?: boolean } = {}) {
  const live = new Set<object>();
  const lose: Array<() => void> = [];
  const create = (): GpuAddon => {
    if (opts.failCreate) throw new Error('WebGL2 not supported');
    const addon = {
      onContextLoss: (l: () => void) => lose.push(l),
      dispose: () => live.delete(addon),
    };
    live.add(addon);
    return addon;
  };
  const term = {
    loaded: 0,
    loadAddon() {
      if (opts.failLoad) throw new Error('could not create a WebGL context');
      this.loaded++;
    },
  };
  return { live, lose, create, term };
}

describe('attachGpuRenderer', () => {
  it('holds one context while the pane is shown and gives it back when hidden', () => {
    const g = fakeGpu();
    const states: RendererState[] = [];
    const detach = attachGpuRenderer(g.term, g.create, (s) => states.push(s));
    expect(g.live.size).toBe(1);
    expect(g.term.loaded).toBe(1);
    detach();
    expect(g.live.size).toBe(0);
    expect(states).toEqual(['webgl', 'dom']);
    // Showing and hiding many times never accumulates contexts.
    for (let i = 0; i < 20; i++) attachGpuRenderer(g.term, g.create)();
    expect(g.live.size).toBe(0);
  });

  it('falls back to the DOM renderer when WebGL is missing or the context cannot be made', () => {
    for (const opts of [{ failCreate: true }, { failLoad: true }]) {
      const g = fakeGpu(opts);
      const states: RendererState[] = [];
      const detach = attachGpuRenderer(g.term, g.create, (s) => states.push(s));
      expect(states).toEqual(['dom-unavailable']);
      // A half-made addon is not left holding a context.
      expect(g.live.size).toBe(0);
      detach();
      expect(states).toEqual(['dom-unavailable']);
    }
  });

  it('drops a lost context and stays on the DOM renderer', () => {
    const g = fakeGpu();
    const states: RendererState[] = [];
    const detach = attachGpuRenderer(g.term, g.create, (s) => states.push(s));
    g.lose[0]!();
    expect(g.live.size).toBe(0);
    expect(states).toEqual(['webgl', 'dom-context-lost']);
    detach();
    expect(states).toEqual(['webgl', 'dom-context-lost']);
  });
});

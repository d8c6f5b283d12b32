import type { SliceCreator } from '.';
import type { OpenTarget, TerminalInfo } from '../../../src-preload/contract';

/** How the terminal area is split: one pane, two side by side, or a 2×2 grid. */
export type TerminalLayout = 'single' | 'columns' | 'grid';
export const PANES_PER_LAYOUT: Record<TerminalLayout, number> = { single: 1, columns: 2, grid: 4 };

/** Which terminal each pane shows survives a reload of this window (not shared across windows). */
const LAYOUT_KEY = 'flightdeck.terminals.layout';
/**
 * GPU rendering depends on the machine showing the UI (browser mode may be opened from several),
 * so it is a preference of this browser, not a setting in the shared database.
 */
const GPU_KEY = 'flightdeck.terminals.gpu';
export type TerminalGpu = 'auto' | 'off';

function loadGpu(): TerminalGpu {
  try {
    return globalThis.localStorage?.getItem(GPU_KEY) === 'off' ? 'off' : 'auto';
  } catch {
    return 'auto';
  }
}

interface SavedLayout {
  layout: TerminalLayout;
  panes: Array<string | null>;
}

function loadSaved(): SavedLayout {
  try {
    const raw = JSON.parse(globalThis.localStorage?.getItem(LAYOUT_KEY) ?? 'null') as SavedLayout | null;
    if (raw && raw.layout in PANES_PER_LAYOUT && Array.isArray(raw.panes)) {
      const n = PANES_PER_LAYOUT[raw.layout];
      return { layout: raw.layout, panes: Array.from({ length: n }, (_, i) => (typeof raw.panes[i] === 'string' ? raw.panes[i]! : null)) };
    }
  } catch {
    // A corrupt or unavailable entry just means the default layout.
  }
  return { layout: 'single', panes: [null] };
}

function save(layout: TerminalLayout, panes: Array<string | null>): void {
  try {
    globalThis.localStorage?.setItem(LAYOUT_KEY, JSON.stringify({ layout, panes }));
  } catch {
    // Storage full or disabled: the layout is simply not remembered.
  }
}

/**
 * Terminal metadata and the pane layout. Terminal output never comes here: panes write it
 * straight into xterm (see terminals/XtermPane.tsx).
 */
export interface TerminalsSlice {
  terminals: TerminalInfo[];
  terminalsLoaded: boolean;
  terminalLayout: TerminalLayout;
  terminalPanes: Array<string | null>;
  focusedPane: number;
  /** 'auto': visible terminals render with WebGL when the browser has it (DOM otherwise); 'off': DOM everywhere. */
  terminalGpu: TerminalGpu;
  setTerminalGpu(gpu: TerminalGpu): void;
  setTerminals(list: TerminalInfo[]): void;
  loadTerminals(): Promise<void>;
  /** Opens a shell and shows it in the Terminals view; resolves to its id (null on failure, already toasted). */
  openTerminal(target: OpenTarget): Promise<string | null>;
  /** Shows a terminal the main process just opened (a container's shell or agent console) in the Terminals view. */
  adoptTerminal(info: TerminalInfo): void;
  showTerminal(id: string, pane?: number): void;
  clearPane(pane: number): void;
  focusPane(pane: number): void;
  setTerminalLayout(layout: TerminalLayout): void;
  killTerminal(id: string): Promise<void>;
  closeTerminal(id: string): Promise<void>;
}

export const createTerminalsSlice: SliceCreator<TerminalsSlice> = (set, get, client) => {
  const saved = loadSaved();
  const update = (panes: Array<string | null>, extra: Partial<TerminalsSlice> = {}) => {
    set({ terminalPanes: panes, ...extra });
    save(extra.terminalLayout ?? get().terminalLayout, panes);
  };
  return {
    terminals: [],
    terminalsLoaded: false,
    terminalLayout: saved.layout,
    terminalPanes: saved.panes,
    focusedPane: 0,
    terminalGpu: loadGpu(),
    setTerminalGpu(gpu) {
      set({ terminalGpu: gpu });
      try {
        globalThis.localStorage?.setItem(GPU_KEY, gpu);
      } catch {
        // Not remembered across reloads; it still applies now.
      }
    },
    setTerminals(list) {
      const ids = new Set(list.map((t) => t.id));
      const panes = get().terminalPanes.map((p) => (p && ids.has(p) ? p : null));
      set({ terminals: list, terminalsLoaded: true });
      if (panes.some((p, i) => p !== get().terminalPanes[i])) update(panes);
    },
    async loadTerminals() {
      try {
        get().setTerminals(await client.invoke('terminals.list', {}));
      } catch (e) {
        get().toastError('Could not list terminals', e);
      }
    },
    async openTerminal(target) {
      try {
        const info = await client.invoke('terminals.create', { target, cols: 100, rows: 30 });
        get().adoptTerminal(info);
        return info.id;
      } catch (e) {
        get().toastError('Could not open a terminal', e);
        return null;
      }
    },
    adoptTerminal(info) {
      set((s) => ({ terminals: s.terminals.some((t) => t.id === info.id) ? s.terminals : [...s.terminals, info] }));
      get().showTerminal(info.id);
      get().setView({ name: 'terminals' });
    },
    showTerminal(id, pane) {
      const panes = [...get().terminalPanes];
      const already = panes.indexOf(id);
      // A terminal is shown in one pane at a time; picking it again just focuses that pane.
      if (already >= 0 && pane === undefined) {
        set({ focusedPane: already });
        return;
      }
      let target = pane ?? get().focusedPane;
      if (pane === undefined && panes[target] !== null) {
        const empty = panes.indexOf(null);
        if (empty >= 0) target = empty;
      }
      if (already >= 0) panes[already] = null;
      panes[target] = id;
      update(panes, { focusedPane: target });
    },
    clearPane(pane) {
      const panes = [...get().terminalPanes];
      panes[pane] = null;
      update(panes);
    },
    focusPane: (pane) => set({ focusedPane: pane }),
    setTerminalLayout(layout) {
      const n = PANES_PER_LAYOUT[layout];
      const current = get().terminalPanes.filter((p): p is string => p !== null);
      // Keep what is shown; fill new panes with other terminals, most recent first.
      const others = [...get().terminals]
        .reverse()
        .map((t) => t.id)
        .filter((id) => !current.includes(id));
      const panes = Array.from({ length: n }, (_, i) => current[i] ?? others.shift() ?? null);
      update(panes, { terminalLayout: layout, focusedPane: Math.min(get().focusedPane, n - 1) });
    },
    async killTerminal(id) {
      // An interactive shell ignores SIGTERM; SIGHUP is what closing a terminal window sends.
      const signal = get().terminals.find((t) => t.id === id)?.kind === 'shell' ? 'SIGHUP' : 'SIGTERM';
      try {
        await client.invoke('terminals.kill', { id, signal });
      } catch (e) {
        get().toastError('Could not stop the terminal', e);
      }
    },
    async closeTerminal(id) {
      try {
        await client.invoke('terminals.close', { id });
        get().setTerminals(get().terminals.filter((t) => t.id !== id));
      } catch (e) {
        get().toastError('Could not close the terminal', e);
      }
    },
  };
};

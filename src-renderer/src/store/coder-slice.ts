import type { SliceCreator } from '.';
import type { ClaudeDetection, CoderSessionConfig, CoderSettings, Executor } from '../../../src-preload/contract/coder';

export interface CoderSlice {
  claudeDetection: ClaudeDetection | null;
  detectingClaude: boolean;
  coderSettings: CoderSettings | null;
  /** Claude Code state per session id (loaded when a session view opens). */
  coderSessions: Map<string, CoderSessionConfig>;
  detectClaude(): Promise<void>;
  loadCoderSettings(): Promise<void>;
  updateCoderSettings(patch: Partial<CoderSettings>): Promise<boolean>;
  loadCoderSession(sessionId: string): Promise<void>;
  upsertCoderSession(config: CoderSessionConfig): void;
  updateCoderSession(sessionId: string, patch: { executor?: Executor; injectConstraints?: boolean; resetConversation?: boolean }): Promise<void>;
}

export const createCoderSlice: SliceCreator<CoderSlice> = (set, get, client) => ({
  claudeDetection: null,
  detectingClaude: false,
  coderSettings: null,
  coderSessions: new Map(),

  async detectClaude() {
    set({ detectingClaude: true });
    try {
      set({ claudeDetection: await client.invoke('coder.detect', {}) });
    } catch (e) {
      get().toastError('Could not look for the claude CLI', e);
    } finally {
      set({ detectingClaude: false });
    }
  },

  async loadCoderSettings() {
    try {
      set({ coderSettings: await client.invoke('coder.settings.get', {}) });
    } catch (e) {
      get().toastError('Could not load the Claude Code settings', e);
    }
  },

  async updateCoderSettings(patch) {
    try {
      set({ coderSettings: await client.invoke('coder.settings.update', patch) });
      if (patch.claudePath !== undefined) await get().detectClaude();
      return true;
    } catch (e) {
      get().toastError('Could not save the Claude Code settings', e);
      return false;
    }
  },

  async loadCoderSession(sessionId) {
    try {
      get().upsertCoderSession(await client.invoke('coder.sessions.get', { sessionId }));
    } catch (e) {
      get().toastError('Could not load the session executor', e);
    }
  },

  upsertCoderSession(config) {
    set((s) => {
      const next = new Map(s.coderSessions);
      next.set(config.sessionId, config);
      return { coderSessions: next };
    });
  },

  async updateCoderSession(sessionId, patch) {
    try {
      get().upsertCoderSession(await client.invoke('coder.sessions.update', { sessionId, ...patch }));
    } catch (e) {
      get().toastError('Could not change the session executor', e);
    }
  },
});

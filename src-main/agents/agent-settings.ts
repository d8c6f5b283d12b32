import { AgentSettings, type AgentSettings as AgentSettingsT } from '../../src-preload/contract';
import type { SettingsService } from '../settings/settings-service';
import { DEFAULT_NETWORK } from '../sandbox/policy';

export const DEFAULT_AGENT_SETTINGS: AgentSettingsT = {
  hardFloor: true,
  /** 50 model calls covers a sizeable change with its test runs; a loop stuck longer should stop and ask. */
  maxSteps: 50,
  /** Compact at 80%: the next step still has a fifth of the window for its answer and tool results. */
  compactAtShare: 0.8,
  /** Four retries with doubling backoff span about half a minute: most overloads and rate limits clear by then. */
  maxRetries: 4,
  /** 90 s of silence: longer than a model's slowest first token with thinking, short enough not to hang a turn. */
  idleTimeoutMs: 90_000,
  /** Ten minutes fits a full test suite or build; longer commands should be run in a terminal. */
  bashTimeoutMs: 10 * 60_000,
  defaultMode: 'default',
  defaultPolicyPreset: 'balanced',
  sandboxNetwork: DEFAULT_NETWORK.mode,
  sandboxAllowedDomains: [...DEFAULT_NETWORK.allowedDomains],
};

const KEY = 'agents.settings';

/** Engine settings in the settings table (one JSON value); invalid stored fields fall back to defaults. */
export class AgentSettingsStore {
  constructor(private readonly settings: SettingsService) {}

  get(): AgentSettingsT {
    const stored = this.settings.getInternal<Record<string, unknown>>(KEY) ?? {};
    const out = { ...DEFAULT_AGENT_SETTINGS };
    for (const key of Object.keys(DEFAULT_AGENT_SETTINGS) as Array<keyof AgentSettingsT>) {
      const one = AgentSettings.shape[key].safeParse(stored[key]);
      if (one.success) (out as Record<string, unknown>)[key] = one.data;
    }
    return out;
  }

  update(patch: Partial<AgentSettingsT>): AgentSettingsT {
    const next = { ...this.get(), ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
    this.settings.setInternal(KEY, next);
    return this.get();
  }
}

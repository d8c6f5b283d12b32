/**
 * Provider profiles: the four built-in presets (editable, not removable) plus the user's own.
 * Non-secret fields live in the settings table; keys live in the SecretStore under
 * `provider:<name>`. ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL / ANTHROPIC_MODEL are defaults of
 * the built-in "anthropic" profile until the user saves their own values.
 */
import { AppError, type ProviderProfile, type ProviderProfileInput } from '../../../src-preload/contract';
import type { SettingsService } from '../../settings/settings-service';
import { PRESETS, presetById } from './presets';
import type { SecretStore } from './secrets';
import type { ResolvedProfile } from './types';

type StoredProfile = Omit<ProviderProfileInput, 'apiKey' | 'clearApiKey' | 'makeDefault'>;

const PROFILES_KEY = 'agents.profiles';
const DEFAULT_KEY = 'agents.defaultProfile';
const secretName = (profile: string) => `provider:${profile}`;

export interface ProfileEnv {
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  ANTHROPIC_MODEL?: string;
}

export class ProfileService {
  constructor(
    private readonly settings: SettingsService,
    private readonly secrets: SecretStore,
    private readonly env: ProfileEnv = process.env,
  ) {}

  private stored(): StoredProfile[] {
    const v = this.settings.getInternal<StoredProfile[]>(PROFILES_KEY);
    return Array.isArray(v) ? v : [];
  }

  private builtIn(id: string): StoredProfile | null {
    const p = presetById(id);
    if (!p) return null;
    const env = id === 'anthropic' ? this.env : {};
    return {
      name: p.id,
      label: p.label,
      preset: p.id,
      baseUrl: nonEmpty(env.ANTHROPIC_BASE_URL) ?? p.baseUrl,
      model: nonEmpty(env.ANTHROPIC_MODEL) ?? p.model,
      maxTokens: p.maxTokens,
      contextWindow: p.contextWindow,
      prices: { ...p.prices },
    };
  }

  private all(): StoredProfile[] {
    const stored = this.stored();
    const out: StoredProfile[] = PRESETS.map((p) => stored.find((s) => s.name === p.id) ?? this.builtIn(p.id)!);
    for (const s of stored) if (!presetById(s.name)) out.push(s);
    return out;
  }

  defaultName(): string {
    const name = this.settings.getInternal<string>(DEFAULT_KEY);
    return typeof name === 'string' && this.all().some((p) => p.name === name) ? name : 'anthropic';
  }

  /**
   * The key and where it comes from. A key store that cannot be read is `unreadable` with its
   * reason, never "no key" (and the environment's key does not silently stand in for a stored
   * one that may be in the damaged file).
   */
  private keyOf(name: string): { key: string | null; source: ProviderProfile['apiKeySource']; problem?: string } {
    let stored: string | null;
    try {
      stored = this.secrets.get(secretName(name));
    } catch (e) {
      if (e instanceof AppError) return { key: null, source: 'unreadable', problem: e.message };
      throw e;
    }
    if (stored) return { key: stored, source: 'stored' };
    if (name === 'anthropic' && nonEmpty(this.env.ANTHROPIC_API_KEY)) return { key: this.env.ANTHROPIC_API_KEY!.trim(), source: 'env' };
    return { key: null, source: 'none' };
  }

  private view(p: StoredProfile, defaultName: string): ProviderProfile {
    const { source, problem } = this.keyOf(p.name);
    return {
      ...p,
      apiKeySet: source === 'stored' || source === 'env',
      apiKeySource: source,
      ...(problem ? { apiKeyProblem: problem } : {}),
      isDefault: p.name === defaultName,
      builtIn: presetById(p.name) !== undefined,
    };
  }

  list(): ProviderProfile[] {
    const d = this.defaultName();
    return this.all().map((p) => this.view(p, d));
  }

  get(name: string): ProviderProfile | null {
    const p = this.all().find((x) => x.name === name);
    return p ? this.view(p, this.defaultName()) : null;
  }

  /** The profile with its key, for building a provider in main. Never hand this to the renderer. */
  resolve(name: string, modelOverride?: string): ResolvedProfile {
    const p = this.all().find((x) => x.name === name);
    if (!p) throw new AppError('not_found', `There is no provider profile "${name}". Known: ${this.all().map((x) => x.name).join(', ')}.`);
    const key = this.keyOf(p.name);
    if (key.source === 'unreadable') throw new AppError('unavailable', key.problem ?? 'The stored API key cannot be read.');
    return {
      name: p.name,
      baseUrl: p.baseUrl,
      apiKey: key.key,
      model: modelOverride ?? p.model,
      maxTokens: p.maxTokens,
      contextWindow: p.contextWindow,
      prices: p.prices,
    };
  }

  save(input: ProviderProfileInput): ProviderProfile {
    const { apiKey, clearApiKey, makeDefault, ...fields } = input;
    if (apiKey !== undefined && clearApiKey) throw new AppError('invalid_input', 'Give a new API key or clear it, not both.');
    if (fields.preset !== 'custom' && presetById(fields.name) && fields.preset !== fields.name) {
      throw new AppError('invalid_input', `"${fields.name}" is a built-in profile of preset ${fields.name}.`);
    }
    // The key first: a key store that refuses the change (unreadable, disk full) leaves the profile as it was.
    if (apiKey !== undefined) this.secrets.set(secretName(fields.name), apiKey);
    if (clearApiKey) this.secrets.delete(secretName(fields.name));
    const stored = this.stored().filter((s) => s.name !== fields.name);
    stored.push(fields);
    this.settings.setInternal(PROFILES_KEY, stored);
    if (makeDefault) this.settings.setInternal(DEFAULT_KEY, fields.name);
    return this.get(fields.name)!;
  }

  setDefault(name: string): void {
    if (!this.get(name)) throw new AppError('not_found', `There is no provider profile "${name}".`);
    this.settings.setInternal(DEFAULT_KEY, name);
  }

  setApiKey(name: string, key: string | null): void {
    if (!this.get(name)) throw new AppError('not_found', `There is no provider profile "${name}".`);
    if (key === null) this.secrets.delete(secretName(name));
    else this.secrets.set(secretName(name), key);
  }

  remove(name: string): boolean {
    if (presetById(name)) throw new AppError('conflict', `"${name}" is a built-in profile; it can be edited but not removed.`);
    const stored = this.stored();
    const next = stored.filter((s) => s.name !== name);
    if (next.length === stored.length) return false;
    // The key first: while the key store cannot be changed, the profile stays (its key is not orphaned).
    this.secrets.delete(secretName(name));
    this.settings.setInternal(PROFILES_KEY, next);
    if (this.settings.getInternal<string>(DEFAULT_KEY) === name) this.settings.setInternal(DEFAULT_KEY, 'anthropic');
    return true;
  }
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim().length > 0 ? v.trim() : undefined;
}

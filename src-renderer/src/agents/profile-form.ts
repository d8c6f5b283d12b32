/**
 * The provider form's model: a draft the inputs edit (numbers as typed, so an emptied field is
 * an error rather than a silent 0), turned into exactly the contract's `ProviderProfileInput`
 * (never the read-only fields a listed profile carries), and validation issues turned into
 * words beside their field. Pure; unit-tested.
 */
import { ProviderProfileInput, type ProviderProfile } from '../../../src-preload/contract/agents';

export const PRICE_KEYS = ['inputPerMTok', 'outputPerMTok', 'cacheReadPerMTok', 'cacheWritePerMTok'] as const;
type PriceKey = (typeof PRICE_KEYS)[number];

export interface ProfileDraft {
  isNew: boolean;
  name: string;
  label: string;
  preset: ProviderProfile['preset'];
  baseUrl: string;
  model: string;
  maxTokens: string;
  contextWindow: string;
  prices: Record<PriceKey, string>;
  apiKey: string;
  makeDefault: boolean;
  /** Whether the profile was the default when the form opened ("make default" is then not sent again). */
  wasDefault: boolean;
}

/** Field keys errors attach to: the top-level names, and `prices.<key>`. */
export type FieldKey = 'name' | 'label' | 'baseUrl' | 'model' | 'maxTokens' | 'contextWindow' | 'apiKey' | `prices.${PriceKey}` | 'form';

export const NEW_DRAFT: ProfileDraft = {
  isNew: true,
  name: '',
  label: '',
  preset: 'custom',
  baseUrl: 'https://',
  model: '',
  maxTokens: '8192',
  contextWindow: '200000',
  prices: { inputPerMTok: '0', outputPerMTok: '0', cacheReadPerMTok: '0', cacheWritePerMTok: '0' },
  apiKey: '',
  makeDefault: false,
  wasDefault: false,
};

export function draftFromProfile(p: ProviderProfile): ProfileDraft {
  return {
    isNew: false,
    name: p.name,
    label: p.label,
    preset: p.preset,
    baseUrl: p.baseUrl,
    model: p.model,
    maxTokens: String(p.maxTokens),
    contextWindow: String(p.contextWindow),
    prices: { inputPerMTok: String(p.prices.inputPerMTok), outputPerMTok: String(p.prices.outputPerMTok), cacheReadPerMTok: String(p.prices.cacheReadPerMTok), cacheWritePerMTok: String(p.prices.cacheWritePerMTok) },
    apiKey: '',
    makeDefault: p.isDefault,
    wasDefault: p.isDefault,
  };
}

/** A typed number; '' and junk become NaN so the schema reports them instead of saving 0. */
const num = (s: string): number => (s.trim() === '' ? NaN : Number(s));

/** Exactly the fields `agents.profiles.save` accepts. */
export function draftToInput(d: ProfileDraft): Record<string, unknown> {
  const key = d.apiKey.trim();
  return {
    name: d.name.trim(),
    label: d.label,
    preset: d.preset,
    baseUrl: d.baseUrl.trim(),
    model: d.model,
    maxTokens: num(d.maxTokens),
    contextWindow: num(d.contextWindow),
    prices: Object.fromEntries(PRICE_KEYS.map((k) => [k, num(d.prices[k])])),
    ...(key ? { apiKey: key } : {}),
    ...(d.makeDefault && !d.wasDefault ? { makeDefault: true } : {}),
  };
}

const MESSAGES: Record<string, string> = {
  name: 'Use lowercase letters, digits, ".", "_" or "-" (up to 40), starting with a letter or digit.',
  label: 'Give the provider a name people read, e.g. "Work Anthropic".',
  baseUrl: 'Enter the full address of the endpoint, starting with https:// (or http:// for a local server).',
  model: 'Enter the model name the endpoint expects, e.g. claude-sonnet-5.',
  maxTokens: 'A whole number from 1 to 1,000,000.',
  contextWindow: 'A whole number from 1,000 to 10,000,000.',
  price: 'A price in USD from 0 to 10,000 (e.g. 3 or 0.3).',
  apiKey: 'The key contains spaces or line breaks; paste it again without them.',
};

export interface Validation {
  ok: boolean;
  input: ProviderProfileInput | null;
  errors: Partial<Record<FieldKey, string>>;
}

/** Checks the draft against the contract's own schema; errors are words, by field. */
export function validateDraft(d: ProfileDraft): Validation {
  const r = ProviderProfileInput.safeParse(draftToInput(d));
  if (r.success) return { ok: true, input: r.data, errors: {} };
  const errors: Partial<Record<FieldKey, string>> = {};
  for (const issue of r.error.issues) {
    const [top, sub] = issue.path.map(String);
    const key = (top === 'prices' && sub ? `prices.${sub}` : top) as FieldKey | undefined;
    if (!key) {
      errors.form ??= issue.message;
      continue;
    }
    errors[key] ??= top === 'prices' ? MESSAGES.price! : (MESSAGES[top!] ?? issue.message);
  }
  return { ok: false, input: null, errors };
}

/** Which field a server-side validation message ("baseUrl: …; model: …") points at, if any. */
export function fieldOfServerMessage(message: string): FieldKey | null {
  const m = /^(name|label|baseUrl|model|maxTokens|contextWindow|apiKey|prices\.\w+):/.exec(message);
  return m ? (m[1] as FieldKey) : null;
}

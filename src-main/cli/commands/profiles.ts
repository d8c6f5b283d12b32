import { ProfileName, ProviderPresetId, ProviderProfileInput, type ProviderProfile } from '../../../src-preload/contract';
import { presetById } from '../../agents/provider/presets';
import { UsageError, type CliCommand } from '../command';
import { readSecret } from './chat-support';

const NUMBER_FLAGS = {
  'max-tokens': 'maxTokens',
  'context-window': 'contextWindow',
} as const;
const PRICE_FLAGS = {
  'price-input': 'inputPerMTok',
  'price-output': 'outputPerMTok',
  'price-cache-read': 'cacheReadPerMTok',
  'price-cache-write': 'cacheWritePerMTok',
} as const;

function describe(p: ProviderProfile): string {
  const key = p.apiKeySet ? `key: ${p.apiKeySource}` : p.apiKeySource === 'unreadable' ? 'key store unreadable' : 'no key';
  return `${p.isDefault ? '*' : ' '} ${p.name.padEnd(12)} ${p.model.padEnd(24)} ${p.baseUrl}  (${key}; $${p.prices.inputPerMTok}/$${p.prices.outputPerMTok} per M in/out)`;
}

export const profilesCommand: CliCommand = {
  name: 'profiles',
  summary: 'List or change provider profiles (Anthropic-compatible endpoints). Keys are read from stdin or an env var, never echoed.',
  usage:
    'profiles list | profiles set NAME [--preset P] [--label L] [--base-url URL] [--model M] [--max-tokens N] [--context-window N] [--price-input X] [--price-output X] [--price-cache-read X] [--price-cache-write X] [--api-key-stdin | --api-key-env VAR | --clear-api-key] [--default] | profiles remove NAME | profiles default NAME',
  flags: {
    preset: true,
    label: true,
    'base-url': true,
    model: true,
    'max-tokens': true,
    'context-window': true,
    'price-input': true,
    'price-output': true,
    'price-cache-read': true,
    'price-cache-write': true,
    'api-key-stdin': false,
    'api-key-env': true,
    'clear-api-key': false,
    default: false,
  },
  async run(ctx) {
    const [sub, name, ...rest] = ctx.args;
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const app = await ctx.openApp();
    const profiles = app.agents.profiles;
    const checkName = () => {
      if (!name) throw new UsageError(`profiles ${sub} needs a NAME`);
      if (!ProfileName.safeParse(name).success) throw new UsageError(`"${name}" is not a valid profile name (a-z, 0-9, ".", "_", "-")`);
      return name;
    };
    switch (sub) {
      case undefined:
      case 'list': {
        const list = profiles.list();
        if (ctx.json) ctx.out(JSON.stringify(list));
        else {
          for (const p of list) ctx.out(describe(p));
          // A damaged key file is the same problem for every profile: each distinct one is said once, in full.
          for (const problem of new Set(list.flatMap((p) => (p.apiKeyProblem ? [p.apiKeyProblem] : [])))) ctx.out(`\n${problem}`);
        }
        return 0;
      }
      case 'default': {
        profiles.setDefault(checkName());
        app.agents.publishProfiles();
        ctx.out(ctx.json ? JSON.stringify({ default: name }) : `Default profile: ${name}`);
        return 0;
      }
      case 'remove': {
        const removed = profiles.remove(checkName());
        if (removed) app.agents.publishProfiles();
        ctx.out(ctx.json ? JSON.stringify({ removed }) : removed ? `Removed ${name} and its stored key.` : `No profile ${name}.`);
        return removed ? 0 : 1;
      }
      case 'set': {
        const n = checkName();
        const existing = profiles.get(n);
        const f = ctx.flags;
        const presetFlag = typeof f.preset === 'string' ? ProviderPresetId.safeParse(f.preset) : null;
        if (presetFlag && !presetFlag.success) throw new UsageError(`--preset takes ${ProviderPresetId.options.join('|')}`);
        const preset = presetFlag?.data ?? existing?.preset ?? (presetById(n) ? (n as ProviderProfile['preset']) : 'custom');
        const base = presetById(preset);
        if (!existing && !base && typeof f['base-url'] !== 'string') throw new UsageError('a new custom profile needs --base-url (and usually --model)');
        const str = (k: string) => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
        const num = (k: string) => {
          const v = str(k);
          if (v === undefined) return undefined;
          const x = Number(v);
          if (!Number.isFinite(x)) throw new UsageError(`--${k} takes a number`);
          return x;
        };
        const prices = { ...(existing?.prices ?? base?.prices ?? { inputPerMTok: 0, outputPerMTok: 0, cacheReadPerMTok: 0, cacheWritePerMTok: 0 }) };
        for (const [flag, field] of Object.entries(PRICE_FLAGS)) {
          const v = num(flag);
          if (v !== undefined) prices[field] = v;
        }
        const numbers: Record<string, number | undefined> = {};
        for (const [flag, field] of Object.entries(NUMBER_FLAGS)) numbers[field] = num(flag);
        let apiKey: string | undefined;
        if (f['api-key-stdin'] === true) apiKey = await readSecret(`API key for ${n} (input hidden): `, (s) => process.stderr.write(s));
        else if (typeof f['api-key-env'] === 'string') {
          apiKey = process.env[f['api-key-env']]?.trim();
          if (!apiKey) throw new UsageError(`the environment variable ${f['api-key-env']} is empty or unset`);
        }
        if (apiKey !== undefined && apiKey === '') throw new UsageError('the API key read from stdin is empty');
        const parsed = ProviderProfileInput.safeParse({
          name: n,
          label: str('label') ?? existing?.label ?? base?.label ?? n,
          preset,
          baseUrl: str('base-url') ?? existing?.baseUrl ?? base?.baseUrl,
          model: str('model') ?? existing?.model ?? base?.model,
          maxTokens: numbers.maxTokens ?? existing?.maxTokens ?? base?.maxTokens ?? 8_192,
          contextWindow: numbers.contextWindow ?? existing?.contextWindow ?? base?.contextWindow ?? 200_000,
          prices,
          ...(apiKey !== undefined ? { apiKey } : {}),
          ...(f['clear-api-key'] === true ? { clearApiKey: true } : {}),
          ...(f.default === true ? { makeDefault: true } : {}),
        });
        if (!parsed.success) {
          // The messages name fields only; a rejected key is never printed back.
          throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.') || 'profile'}: ${i.message}`).join('; '));
        }
        const saved = profiles.save(parsed.data);
        app.agents.publishProfiles();
        ctx.out(ctx.json ? JSON.stringify(saved) : `Saved:\n${describe(saved)}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown subcommand "${sub}"`);
    }
  },
};

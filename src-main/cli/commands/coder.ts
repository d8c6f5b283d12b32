/**
 * `flightdeck coder`: the Coder tool (Claude Code behind a fixed JSON contract) from the
 * command line. The parameter object comes as JSON on stdin (or `--json '<object>'`); stdout
 * gets exactly the result object as JSON; the exit code is 0 on success, 1 on failure.
 * Anything else (metrics with log_metrics, warnings) goes to stderr.
 *
 * Provider: `--profile NAME` uses a Flightdeck profile (its URL, model and stored key);
 * without it the CLI inherits ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN /
 * ANTHROPIC_MODEL from the environment. Tool calls are decided headless (no one to ask):
 * read-only allows reads and read-only commands; workspace-write allows work inside cd; the
 * hard floor always holds.
 *
 * SIGINT, SIGTERM and SIGHUP (a closed terminal) end the run the same way: the CLI's process
 * group is stopped, the run's temporary folder removed, the `cancelled` result printed; a
 * second signal stops at once (exit hooks still kill the group and remove the folder).
 */
import { constants as osConstants } from 'node:os';
import { resolve } from 'node:path';
import { runCoder } from '../../coder/coder';
import { buildCoderPrompt } from '../../coder/constraints';
import { locateClaude } from '../../coder/detect';
import { authModeFor } from '../../coder/session-turn';
import type { CoderBackend } from '../../coder/core/launch';
import { failure, type CoderResult } from '../../coder/core/result';
import { UsageError, type CliCommand } from '../command';

function readStdin(): Promise<string> {
  return new Promise((resolveRead, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (c: string) => (text += c));
    process.stdin.on('end', () => resolveRead(text));
    process.stdin.on('error', reject);
  });
}

const CONFIG_LIMITS = { idle_timeout_s: 300, max_duration_s: 1_800 };
/** Signals that end a run cleanly: Ctrl-C, a polite kill, a closed terminal. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export const coderCommand: CliCommand = {
  name: 'coder',
  summary: 'Run the Coder tool (Claude Code) once: parameters as JSON, the result as JSON.',
  usage: "coder [--json '<params>'] [--profile NAME] [--claude PATH] [--inject] [--check-contract]   (params on stdin when --json is absent)",
  flags: { json: true, profile: true, claude: true, inject: false, 'check-contract': false },
  async run(ctx) {
    if (ctx.args.length > 0) throw new UsageError(`unexpected argument: ${ctx.args[0]}`);
    const print = (r: CoderResult): number => {
      ctx.out(JSON.stringify(r));
      return r.success ? 0 : 1;
    };
    const raw = typeof ctx.flags.json === 'string' ? ctx.flags.json : await readStdin();
    let params: unknown;
    try {
      params = JSON.parse(raw);
    } catch (e) {
      return print(failure('config_error', `The parameters are not valid JSON: ${(e as Error).message}`, CONFIG_LIMITS));
    }
    const p = params as Record<string, unknown> | null;
    if (ctx.flags.inject === true && p && typeof p === 'object' && typeof p.PROMPT === 'string' && typeof p.cd === 'string') {
      const built = await buildCoderPrompt({ task: p.PROMPT, cd: resolve(p.cd), inject: true });
      p.PROMPT = built.prompt;
      if (built.injected.length > 0) process.stderr.write(`[coder] injected: ${built.injected.map((f) => f.path).join(', ')}\n`);
      for (const f of built.refused) process.stderr.write(`[coder] left out: ${f.path}: ${f.reason}\n`);
    }

    let backend: CoderBackend | null = null;
    let claudePath = typeof ctx.flags.claude === 'string' ? ctx.flags.claude : null;
    if (typeof ctx.flags.profile === 'string') {
      const app = await ctx.openApp();
      const profile = app.agents.profiles.get(ctx.flags.profile);
      if (!profile) return print(failure('config_error', `There is no provider profile "${ctx.flags.profile}" (see: flightdeck profiles list).`, CONFIG_LIMITS));
      const resolved = app.agents.profiles.resolve(profile.name);
      if (!resolved.apiKey) return print(failure('config_error', `The provider profile "${profile.name}" has no API key (set one with: flightdeck profiles set ${profile.name} --api-key-stdin).`, CONFIG_LIMITS));
      backend = { profile: profile.name, baseUrl: resolved.baseUrl, apiKey: resolved.apiKey, model: resolved.model, authMode: authModeFor(profile.preset, resolved.baseUrl) };
      claudePath ??= app.coder.settings().claudePath;
    }
    claudePath ??= locateClaude(null)?.path ?? 'claude';

    // A closed terminal sends SIGHUP: without a handler Node exits at once and the CLI's
    // process group, its timers and the run's temporary folder would be left behind.
    const ctl = new AbortController();
    let signalled = false;
    const stop = (signal: NodeJS.Signals) => {
      // Counted apart from ctl: the CLI runner may have aborted it for the same SIGHUP already.
      if (!signalled) {
        signalled = true;
        return ctl.abort();
      }
      // A second signal while the run is being stopped: stop now. process.exit runs the exit
      // hooks, which SIGKILL the CLI's group and remove the run folder synchronously.
      process.exit(128 + (osConstants.signals[signal] ?? 1));
    };
    for (const s of STOP_SIGNALS) process.on(s, stop);
    const onOutputGone = () => ctl.abort();
    ctx.signal.addEventListener('abort', onOutputGone, { once: true });
    try {
      const result = await runCoder(params, { claudePath, backend, signal: ctl.signal, checkContract: ctx.flags['check-contract'] === true || ctx.flags.inject === true });
      return print(result);
    } finally {
      for (const s of STOP_SIGNALS) process.off(s, stop);
      ctx.signal.removeEventListener('abort', onOutputGone);
    }
  },
};

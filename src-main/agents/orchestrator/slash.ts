/**
 * Seed 001 §7, runSlashCommand: the nine built-in commands. Unknown commands answer with a
 * readable error; every command's output is a `command.result` event.
 */
import { PolicyPreset, SessionId, type CommandView } from '../../../src-preload/contract';
import { effectiveSandbox, MODE_LABEL, SANDBOX_HELP, SANDBOX_LABEL } from '../../../src-preload/contract/words';
import { DEFAULT_SANDBOX_MODE } from '../../sandbox/policy';
import { textOf } from '../store/blocks';
import { maybeCompact } from './compact';
import { workingDiff } from './git-diff';
import { callModel } from './model-call';
import { CODER_CONFIG_RELATIVE_PATH, coderConfigUntracked, ignoreCoderConfig, updateCoderConfig } from './coder-config';
import { CONFIG_RELATIVE_PATH, configEntries, readProjectConfig } from './project-config';
import type { TurnEnd } from './run-turn';
import type { TurnContext } from './turn-context';
import { gitWorkTree } from './undo';
import { redoCommand, UNDO_USAGE, undoCommand } from './undo-command';
import { REWIND_USAGE, rewindCommand } from './rewind';

interface SlashResult {
  ok: boolean;
  text: string;
  /** The same output as structure, for the UI (the text stays for the CLI and the log). */
  view?: CommandView;
  /** Follow-up inputs offered as buttons (the text says what to type). */
  actions?: Array<{ label: string; input: string }>;
}

interface SlashCommand {
  name: string;
  usage: string;
  summary: string;
  run(ctx: TurnContext, args: string[]): Promise<SlashResult>;
}

const PRESET_TEXT: Record<PolicyPreset, string> = {
  'read-only': 'reads and read-only commands run, everything else is denied',
  strict: 'reads run; every write and every command asks',
  balanced: 'reads and read-only commands run; writes and other commands ask',
  trusted: 'reads and writes run; read-only commands run; other commands ask',
};

/**
 * The hard floor is Flightdeck's addition to yolo ("all bash, high-risk included"): say that it
 * is on, what it refuses and where it is turned off, so yolo's exception is never a surprise.
 */
export function hardFloorNote(on: boolean, mode: string): string {
  if (!on) return 'Hard floor: OFF — nothing is refused, catastrophic commands included. Turn it back on in Settings → Agents → Hard floor (or agents.settings.update with hardFloor: true).';
  return `Hard floor: on — catastrophic commands (rm -rf / or ~, mkfs, dd onto a disk, fork bombs, force push to the base branch, DROP DATABASE) are refused in every mode${mode === 'yolo' ? ', this YOLO session included' : ', YOLO included'}. Turn it off in Settings → Agents → Hard floor (or agents.settings.update with hardFloor: false).`;
}

const REVIEW_SYSTEM_PROMPT =
  'You are a meticulous senior code reviewer. Review the uncommitted changes you are given: correctness bugs first, then missing tests, security, error handling, naming and clarity. Quote file and line for every point, say how to fix it, and end with a one-line verdict. Do not restate the diff.';

const ok = (text: string, view?: CommandView): SlashResult => (view ? { ok: true, text, view } : { ok: true, text });
const fail = (text: string): SlashResult => ({ ok: false, text });
const noArgs = (name: string, args: string[]): SlashResult | null => (args.length > 0 ? fail(`/${name} takes no arguments.`) : null);

/** The uncommitted changes of the session root for /diff and /review, or why there are none to show. */
async function rootChanges(ctx: TurnContext, name: string, args: string[]): Promise<{ changes: Awaited<ReturnType<typeof workingDiff>> } | { refused: SlashResult }> {
  const bad = noArgs(name, args);
  if (bad) return { refused: bad };
  const root = ctx.session().root;
  if (!(await gitWorkTree(root))) return { refused: fail(`/${name} needs git: ${root} is not a git repository (or git is not installed).`) };
  return { changes: await workingDiff(root) };
}

const MODEL_NAME = /^[\w.\-:/@[\]]{1,200}$/;

/** `/model --gitignore`: the follow-up to a newly created .coder/config.json. */
const GITIGNORE_FLAG = '--gitignore';

/** Where the agent-loop settings in effect come from, one line per key (for `/model` without arguments). */
function configNotes(dir: string): string[] {
  const c = readProjectConfig(dir);
  return [
    `Settings in effect (${CODER_CONFIG_RELATIVE_PATH} wins over ${CONFIG_RELATIVE_PATH}):`,
    ...configEntries(c).map((e) => `  ${e.key} = ${e.value === null ? '(not set)' : String(e.value)}  — ${e.source}`),
    ...(c.problem ? [`Problem: ${c.problem}`] : []),
  ];
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: 'help',
    usage: '/help',
    summary: 'List the commands.',
    async run() {
      const lines = SLASH_COMMANDS.map((c) => `${c.usage.padEnd(42)} ${c.summary}`);
      const bang = 'Run a shell command in the session root (policy and approvals apply outside yolo).';
      return ok(['Commands:', ...lines, '', '!<command>'.padEnd(43) + bang].join('\n'), {
        type: 'table',
        intro: null,
        columns: ['Command', 'What it does'],
        rows: [...SLASH_COMMANDS.map((c) => ({ cells: [c.usage, c.summary] })), { cells: ['!<command>', bang] }],
        notes: [],
      });
    },
  },
  {
    name: 'model',
    usage: '/model [profile | profile:model | model]',
    summary: `Show or switch the model (at once; saved to ${CODER_CONFIG_RELATIVE_PATH}).`,
    async run(ctx, args) {
      const s = ctx.session();
      const profiles = ctx.deps.profiles.list();
      if (args.length === 0) {
        const how = 'Switch with /model <profile>, /model <profile>:<model> or /model <model>.';
        const notes = [how, ...configNotes(ctx.deps.configDir(s))];
        // Providers by the label the header's picker and Settings show; the profile name is what /model takes.
        const label = profiles.find((p) => p.name === s.profile)?.label ?? s.profile;
        const intro = `Model: ${s.model} · ${label} (profile ${s.profile}).`;
        return ok([intro, 'Profiles:', ...profiles.map((p) => `  ${p.name.padEnd(12)} ${p.label.padEnd(20)} ${p.model}${p.apiKeySet ? '' : '  (no API key)'}`), ...notes].join('\n'), {
          type: 'table',
          intro,
          columns: ['Provider', 'Profile', 'Model', 'API key'],
          rows: profiles.map((p) => ({ cells: [p.label, p.name, p.model, p.apiKeySet ? 'set' : 'none'], ...(p.name === s.profile ? { current: true } : {}) })),
          notes,
        });
      }
      if (args.length === 1 && args[0] === GITIGNORE_FLAG) {
        const dir = ctx.deps.configDir(s);
        let added: Awaited<ReturnType<typeof ignoreCoderConfig>>;
        try {
          added = await ignoreCoderConfig(dir);
        } catch (e) {
          // Not a repository, or .gitignore cannot be written: say why instead of an internal error.
          return fail(`Could not add .coder/ to .gitignore: ${e instanceof Error ? e.message : String(e)}`);
        }
        if (!added) return ok('.coder/ is already ignored in this repository: nothing to add.');
        return ok(`Added .coder/ to ${added.path}${added.created ? ' (a new file: commit it, or delete it if you would rather not)' : ''}.`);
      }
      if (args.length > 1) return fail('Usage: /model [profile | profile:model | model]');
      const arg = args[0]!;
      let profile = s.profile;
      let model: string;
      const byName = ctx.deps.profiles.get(arg);
      const colon = arg.indexOf(':');
      if (byName) {
        profile = byName.name;
        model = byName.model;
      } else if (colon > 0 && ctx.deps.profiles.get(arg.slice(0, colon))) {
        profile = arg.slice(0, colon);
        model = arg.slice(colon + 1);
      } else model = arg;
      if (!MODEL_NAME.test(model)) return fail(`"${model}" is not a model name.`);
      ctx.update({ profile, model });
      // Seed 001 §7: the switch is in effect already; saving it is an attempt that may fail.
      const dir = ctx.deps.configDir(s);
      let persistedTo: string | null = null;
      let persistError: string | null = null;
      let created = false;
      try {
        const w = updateCoderConfig(dir, { profile, model });
        persistedTo = w.path;
        created = w.created;
      } catch (e) {
        persistError = e instanceof Error ? e.message.replace(/\.$/, '') : String(e);
      }
      ctx.emit({ type: 'model.changed', profile, model, persistedTo, persistError });
      const key = ctx.deps.profiles.get(profile)?.apiKeySet ? '' : ` Note: profile ${profile} has no API key yet.`;
      const text = `Model set to ${model} (profile ${profile}) for this session, effective now. ${persistedTo ? `Saved to ${persistedTo}.` : `Not saved: ${persistError}.`}${key}`;
      // Never add a file to the user's repository silently: say so, and offer to ignore it.
      if (created && (await coderConfigUntracked(dir))) {
        return {
          ...ok(`${text}\n${CODER_CONFIG_RELATIVE_PATH} is a new file in this git repository (untracked). To keep it out of commits: /model ${GITIGNORE_FLAG}`),
          actions: [{ label: 'Add .coder/ to .gitignore', input: `/model ${GITIGNORE_FLAG}` }],
        };
      }
      return ok(text);
    },
  },
  {
    name: 'permissions',
    usage: '/permissions [preset]',
    summary: 'Show or set the policy preset (read-only, strict, balanced, trusted).',
    async run(ctx, args) {
      const s = ctx.session();
      if (args.length === 0) {
        const rules = ctx.deps.gate.rules(ctx.sessionId);
        // The mode and sandbox by the names the header and Settings show them.
        const chosen = s.state.sandbox ?? DEFAULT_SANDBOX_MODE;
        const sandbox = effectiveSandbox(s.mode, chosen);
        const planned = sandbox !== chosen ? ' (plan mode)' : '';
        const intro = `Policy preset: ${s.policyPreset} — ${PRESET_TEXT[s.policyPreset]}. Mode: ${MODE_LABEL[s.mode]}. Sandbox: ${SANDBOX_LABEL[sandbox]} — ${SANDBOX_HELP[sandbox]}${planned}.`;
        const notes = [`Approved for this session: ${rules.length ? rules.join(', ') : 'nothing yet'}.`, hardFloorNote(ctx.deps.settings().hardFloor, s.mode)];
        return ok([intro, 'Presets:', ...PolicyPreset.options.map((p) => `  ${p.padEnd(10)} ${PRESET_TEXT[p]}`), ...notes].join('\n'), {
          type: 'table',
          intro,
          columns: ['Preset', 'What it allows'],
          rows: PolicyPreset.options.map((p) => ({ cells: [p, PRESET_TEXT[p]], ...(p === s.policyPreset ? { current: true } : {}) })),
          notes,
        });
      }
      if (args.length > 1) return fail('Usage: /permissions [preset]');
      const preset = PolicyPreset.safeParse(args[0]);
      if (!preset.success) return fail(`Unknown preset "${args[0]}". Presets: ${PolicyPreset.options.join(', ')}.`);
      ctx.update({ policyPreset: preset.data });
      ctx.emit({ type: 'permissions.changed', preset: preset.data });
      return ok(`Policy preset set to ${preset.data}: ${PRESET_TEXT[preset.data]}.`);
    },
  },
  {
    name: 'new',
    usage: '/new',
    summary: 'Start a fresh session in the same folder, mode and model.',
    async run(ctx, args) {
      const bad = noArgs('new', args);
      if (bad) return bad;
      const next = ctx.deps.createSessionLike(ctx.session());
      ctx.nextSessionId = next.id;
      ctx.emit({ type: 'session.switched', toSessionId: next.id, reason: 'new' });
      return ok(`Started a new session ${next.id}. This one stays available: /resume ${ctx.sessionId}`);
    },
  },
  {
    name: 'resume',
    usage: '/resume <session-id>',
    summary: 'Switch to another session by its id.',
    async run(ctx, args) {
      if (args.length !== 1 || !SessionId.safeParse(args[0]).success) {
        return fail('Usage: /resume <session-id> — it only accepts a session id (ses-…), as shown by /new, the session list or `flightdeck chat`.');
      }
      const id = args[0]!;
      const target = ctx.deps.sessions.get(id);
      if (!target) return fail(`There is no session ${id}.`);
      if (id === ctx.sessionId) return ok(`${id} is already the current session.`);
      ctx.nextSessionId = id;
      ctx.emit({ type: 'session.switched', toSessionId: id, reason: 'resume' });
      return ok(`Resumed session ${id} (${target.title}, ${target.turnCount} turn${target.turnCount === 1 ? '' : 's'}, ${target.status}).`);
    },
  },
  {
    name: 'compact',
    usage: '/compact',
    summary: 'Summarize older turns now to free context.',
    async run(ctx, args) {
      const bad = noArgs('compact', args);
      if (bad) return bad;
      const r = await maybeCompact(ctx, 'manual');
      if (r.done) return ok(`Compacted ${r.count} messages: ~${r.before} → ~${r.after} tokens. The last turns are kept word for word.`);
      return r.reason === 'cancelled' ? fail('Cancelled.') : ok(`Nothing compacted: ${r.reason}.`);
    },
  },
  {
    name: 'diff',
    usage: '/diff',
    summary: 'Show the uncommitted changes in the session root.',
    async run(ctx, args) {
      const r = await rootChanges(ctx, 'diff', args);
      if ('refused' in r) return r.refused;
      const d = r.changes;
      if (d.status === '' && d.diff.trim() === '') return ok('No changes: the working tree matches HEAD.');
      // Only trailing space is trimmed: git's status columns start with a meaningful space.
      return ok(`${d.status}\n\n${d.diff}`.replace(/\s+$/, ''), { type: 'diff', status: d.status.replace(/\s+$/, ''), diff: d.diff });
    },
  },
  {
    name: 'review',
    usage: '/review',
    summary: 'Ask the model to review the uncommitted changes.',
    async run(ctx, args) {
      const r = await rootChanges(ctx, 'review', args);
      if ('refused' in r) return r.refused;
      const d = r.changes;
      if (d.diff.trim() === '') return ok('Nothing to review: there are no uncommitted changes.');
      ctx.step = 1;
      const call = await callModel(
        ctx,
        'review',
        { system: REVIEW_SYSTEM_PROMPT, messages: [{ role: 'user', content: [{ type: 'text', text: `Review these uncommitted changes:\n\n\`\`\`diff\n${d.diff}\n\`\`\`` }] }], tools: [] },
        { stream: true, step: 1 },
      );
      if (!call.response) return fail(call.error?.kind === 'cancelled' ? 'Cancelled.' : `The review failed: ${call.error?.message ?? 'unknown error'}`);
      const review = textOf(call.response.blocks).trim();
      if (review === '') return ok('The model returned no review.');
      ctx.addMessage('user', 'command', [{ type: 'text', text: 'The user ran /review on the uncommitted changes.' }]);
      ctx.addMessage('assistant', 'chat', [{ type: 'text', text: review }]);
      // The review reached the transcript as it streamed; repeating it here printed it twice.
      const files = d.status.split('\n').filter((l) => l.trim() !== '').length;
      return ok(`Reviewed the uncommitted changes (${files} file${files === 1 ? '' : 's'}); the review is above.`);
    },
  },
  {
    name: 'undo',
    usage: UNDO_USAGE,
    summary: "Revert the last turn's write/patch changes; files you changed since are kept unless you choose.",
    run: undoCommand,
  },
  {
    name: 'redo',
    usage: '/redo',
    summary: 'Take back the last /undo (what it replaced was saved first).',
    run: redoCommand,
  },
  {
    name: 'rewind',
    usage: REWIND_USAGE,
    summary: 'Put the files and the conversation back to a turn (list the turns without one); /rewind undo takes it back.',
    run: rewindCommand,
  },
];

export async function runSlashCommand(ctx: TurnContext, rawInput: string, command: string, args: string[]): Promise<TurnEnd> {
  void rawInput;
  const cmd = SLASH_COMMANDS.find((c) => c.name === command);
  const r = cmd ? await cmd.run(ctx, args) : fail(`Unknown command "/${command}". Type /help for the list of commands.`);
  if (ctx.stopped) return { outcome: 'interrupted', message: null };
  ctx.emit({ type: 'command.result', kind: 'slash', name: command, ok: r.ok, text: r.text, exitCode: null, ...(r.view ? { view: r.view } : {}), ...(r.actions ? { actions: r.actions } : {}) });
  if (ctx.aborted) return { outcome: 'cancelled', message: 'Cancelled by the user.' };
  return { outcome: r.ok ? 'completed' : 'failed', message: r.ok ? null : r.text.split('\n')[0]! };
}

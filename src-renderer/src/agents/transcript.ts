import { contextTokens } from './composer-logic';
import { MODE_LABEL } from '../../../src-preload/contract/words';
import type { AgentEvent, AgentMode, Approval, CommandView, PolicyDecision, RiskLevel, TodoItem, TurnOutcome } from '../../../src-preload/contract/agents';

/**
 * The transcript of a session, rebuilt from its event stream. The same fold runs over the
 * replay (agents.events.read) and over live events, so a reloaded view equals the live one.
 * Pure: no React, no bridge; unit-tested.
 */
export type TranscriptItem =
  | { kind: 'user'; id: string; turnId: string | null; text: string; inputKind: 'chat' | 'bang' | 'slash'; ts: number; images?: number }
  | { kind: 'assistant'; id: string; text: string }
  | { kind: 'thinking'; id: string; text: string }
  | {
      kind: 'tool';
      id: string;
      tool: string;
      inputJson: string;
      decision: { decision: PolicyDecision; source: string; reason: string; risk: RiskLevel } | null;
      approval: Approval | null;
      output: string;
      outputTruncated: boolean;
      /** The terminal the command runs in, when it has one the user can open. */
      terminalId: string | null;
      /** When the tool call began (event time): the running card shows how long it has been going. */
      startedAt?: number;
      /** stdout/stderr: a command's streams apart, when its runner captured them so. */
      result: { isError: boolean; content: string; exitCode: number | null; durationMs: number; stdout?: string; stderr?: string } | null;
    }
  | {
      kind: 'command';
      id: string;
      name: string;
      cmdKind: 'slash' | 'bang';
      ok: boolean;
      text: string;
      exitCode: number | null;
      view: CommandView | null;
      /** Follow-up inputs offered as buttons (e.g. adding .coder/ to .gitignore after /model). */
      actions: ReadonlyArray<{ label: string; input: string }>;
    }
  /** Context compaction (auto or `/compact`) as one block: the figures, and the summary when it arrived. */
  | { kind: 'compaction'; id: string; trigger: 'auto' | 'manual'; text: string; summary: string | null }
  | { kind: 'verify'; id: string; command: string; attempt: number; maxAttempts: number; passed: boolean | null; exitCode: number | null; output: string; timeoutMs?: number }
  | { kind: 'notice'; id: string; level: 'info' | 'warning'; text: string }
  | { kind: 'error'; id: string; code: string; message: string; retryable: boolean }
  | { kind: 'turn-end'; id: string; outcome: TurnOutcome; message: string | null; steps: number }
  /** Chat turns a `/rewind` set aside (from turn `fromTurn` on), folded: shown collapsed, and unfolded again by `/rewind undo`. */
  | { kind: 'rewound'; id: string; toTurn: number; fromTurn: number; toLast: number; items: TranscriptItem[] };

export interface Transcript {
  items: TranscriptItem[];
  lastSeq: number;
  todos: TodoItem[];
  running: boolean;
  /** A retry waiting to happen, shown until the next model output arrives. */
  retry: { attempt: number; maxRetries: number; delayMs: number; reason: string; at: number } | null;
  mode: AgentMode | null;
  /** Index in items where the current (or last) turn began: its commands fold into its cards. */
  turnStart: number;
  /** Claude Code conversations already announced: its "started" notice is shown once per conversation. */
  announced: readonly string[];
  /** The command of the running `!` turn: its bash card is titled with it (no input streams for it). */
  bang: string | null;
  /** Tokens in the context after the latest model call of a turn (or after a compaction), for the meter. */
  context?: { tokens: number; profile: string | null };
  /**
   * Only the newest turns of a long session, shown while the rest is read (its first open): turn
   * numbers and whatever the earlier turns set (todos, announced notices) are not known yet.
   */
  partial?: true;
}

/** Live command output kept per tool card; older output is dropped from the view (the log keeps it). */
export const MAX_TOOL_OUTPUT_CHARS = 200_000;

export const emptyTranscript: Transcript = { items: [], lastSeq: 0, todos: [], running: false, retry: null, mode: null, turnStart: 0, announced: [], bang: null };

/**
 * Text before a legacy resumed turn carried `resumed`: the engine used to put this in `input`.
 * Kept so logs written then still show no invented user message.
 */
const LEGACY_RESUME_INPUT = '(continuing after the approval was answered)';

/** Claude Code's per-turn init notice; the session id is what makes it new. */
const CLAUDE_STARTED = /^Claude Code\b.* started \(session ([^,)]+)/;

/**
 * At most `max` characters of `text`, cut at a line boundary so no line is shown half: the
 * start (`keep: 'head'`) or the end (`keep: 'tail'`). A single line longer than `max` is cut
 * inside it (there is no boundary to use). `cut` tells whether anything was dropped.
 */
export function clipLines(text: string, max: number, keep: 'head' | 'tail'): { text: string; cut: boolean } {
  if (text.length <= max) return { text, cut: false };
  if (keep === 'head') {
    const part = text.slice(0, max);
    const nl = part.lastIndexOf('\n');
    return { text: nl > 0 ? part.slice(0, nl + 1) : part, cut: true };
  }
  const part = text.slice(text.length - max);
  const nl = part.indexOf('\n');
  return { text: nl >= 0 && nl < part.length - 1 ? part.slice(nl + 1) : part, cut: true };
}

/**
 * Applies events in order; events at or below lastSeq (replay/live overlap) are ignored. The
 * items list is copied once for the whole batch, not once per event: a replay of a long session
 * is thousands of events over a thousand items, and copying per event made the fold quadratic.
 */
export function applyEvents(t: Transcript, events: readonly AgentEvent[]): Transcript {
  let next = t;
  for (const e of events) next = applyEvent(next, e, next !== t);
  return next;
}

/**
 * `ownsItems`: `t` is an intermediate result of this batch, nobody else holds its items list,
 * so it is changed in place (applyEvents only).
 */
export function applyEvent(t: Transcript, e: AgentEvent, ownsItems = false): Transcript {
  if (e.seq <= t.lastSeq) return t;
  const items = ownsItems ? t.items : t.items.slice();
  const out: Transcript = { ...t, items, lastSeq: e.seq };
  const d = e.data;
  const id = `${e.seq}`;
  const findTool = (toolUseId: string, tool = 'tool') => {
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i]!;
      if (it.kind === 'tool' && it.id === toolUseId) return i;
    }
    const inputJson = t.bang !== null && tool === 'bash' ? JSON.stringify({ command: t.bang }) : '';
    items.push({ kind: 'tool', id: toolUseId, tool, inputJson, decision: null, approval: null, output: '', outputTruncated: false, terminalId: null, result: null, startedAt: e.ts });
    return items.length - 1;
  };
  const updateTool = (toolUseId: string, tool: string | undefined, fn: (x: Extract<TranscriptItem, { kind: 'tool' }>) => Extract<TranscriptItem, { kind: 'tool' }>) => {
    const i = findTool(toolUseId, tool);
    items[i] = fn(items[i] as Extract<TranscriptItem, { kind: 'tool' }>);
  };
  const appendStreamed = (kind: 'assistant' | 'thinking', key: string, text: string) => {
    const last = items[items.length - 1];
    if (last && last.kind === kind && last.id === key) items[items.length - 1] = { ...last, text: last.text + text };
    else items.push({ kind, id: key, text });
  };

  switch (d.type) {
    case 'turn.started':
      // A turn resumed after an approval has no new input: say so quietly, not as a user message.
      if (d.resumed || d.input === LEGACY_RESUME_INPUT) items.push({ kind: 'notice', id, level: 'info', text: 'Continuing after your answer to the approval.' });
      else {
        out.turnStart = items.length;
        out.bang = d.kind === 'bang' ? d.input.replace(/^!\s*/, '') : null;
        items.push({ kind: 'user', id, turnId: e.turnId, text: d.input, inputKind: d.kind, ts: e.ts, ...(d.images?.length ? { images: d.images.length } : {}) });
      }
      out.running = true;
      out.retry = null;
      out.mode = d.mode;
      break;
    case 'turn.ended':
      items.push({ kind: 'turn-end', id, outcome: d.outcome, message: d.message, steps: d.steps });
      out.running = false;
      out.retry = null;
      break;
    case 'text.delta':
      out.retry = null;
      appendStreamed('assistant', `${e.turnId}:${d.step}:${d.index}`, d.text);
      break;
    case 'thinking.delta':
      out.retry = null;
      appendStreamed('thinking', `${e.turnId}:${d.step}:${d.index}:thinking`, d.text);
      break;
    case 'tool.started':
      out.retry = null;
      findTool(d.toolUseId, d.tool);
      break;
    case 'tool.input.delta':
      updateTool(d.toolUseId, undefined, (x) => ({ ...x, inputJson: x.inputJson + d.partialJson }));
      break;
    case 'tool.decision':
      updateTool(d.toolUseId, d.tool, (x) => ({ ...x, tool: d.tool, decision: { decision: d.decision, source: d.source, reason: d.reason, risk: d.risk } }));
      break;
    case 'approval.requested':
    case 'approval.resolved':
      updateTool(d.approval.toolUseId, d.approval.tool, (x) => ({
        ...x,
        tool: d.approval.tool,
        approval: d.approval,
        inputJson: x.inputJson || JSON.stringify(d.approval.input),
      }));
      break;
    case 'tool.output':
      updateTool(d.toolUseId, undefined, (x) => {
        if (d.terminalId && x.terminalId !== d.terminalId) x = { ...x, terminalId: d.terminalId };
        if (d.chunk === '') return x;
        const kept = clipLines(x.output + d.chunk, MAX_TOOL_OUTPUT_CHARS, 'tail');
        return { ...x, output: kept.text, outputTruncated: x.outputTruncated || kept.cut };
      });
      break;
    case 'tool.result':
      updateTool(d.toolUseId, d.tool, (x) => ({
        ...x,
        tool: d.tool,
        result: { isError: d.isError, content: d.content, exitCode: d.exitCode, durationMs: d.durationMs, ...(d.stdout !== undefined && d.stderr !== undefined ? { stdout: d.stdout, stderr: d.stderr } : {}) },
      }));
      break;
    case 'message':
      if (d.message.kind === 'summary') {
        const text = d.message.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
        // The summary belongs to the compaction just announced: one block, not two.
        const last = items[items.length - 1];
        if (last && last.kind === 'compaction' && last.summary === null) items[items.length - 1] = { ...last, summary: text };
        else items.push({ kind: 'notice', id, level: 'info', text: `Earlier turns were summarized:\n\n${text}` });
      } else if (d.message.role === 'tool') {
        // Tool results without a streamed tool card (e.g. from another executor) still show.
        for (const b of d.message.blocks) {
          if (b.type !== 'tool_result') continue;
          const i = items.findIndex((it) => it.kind === 'tool' && it.id === b.toolUseId);
          if (i < 0) items.push({ kind: 'tool', id: b.toolUseId, tool: 'tool', inputJson: '', decision: null, approval: null, output: '', outputTruncated: false, terminalId: null, result: { isError: b.isError, content: b.content, exitCode: null, durationMs: 0 } });
        }
      }
      break;
    case 'todo.updated':
      out.todos = d.todos;
      break;
    case 'complexity':
      if (d.complex) items.push({ kind: 'notice', id, level: 'info', text: `Complex task (${d.rule ?? 'rule'}): a todo list was started.` });
      break;
    case 'retry':
      out.retry = { attempt: d.attempt, maxRetries: d.maxRetries, delayMs: d.delayMs, reason: d.reason, at: e.ts };
      items.push({ kind: 'notice', id, level: 'warning', text: `${d.reason} — retry ${d.attempt} of ${d.maxRetries} in ${(d.delayMs / 1000).toFixed(1)} s` });
      break;
    case 'compaction':
      items.push({
        kind: 'compaction',
        id,
        trigger: d.trigger,
        text: `Context compacted${d.trigger === 'auto' ? ' automatically' : ''}: ${d.summarizedMessages} ${d.summarizedMessages === 1 ? 'message' : 'messages'} summarized, ~${d.beforeTokens.toLocaleString('en-US')} → ~${d.afterTokens.toLocaleString('en-US')} tokens.`,
        summary: null,
      });
      out.context = { tokens: d.afterTokens, profile: t.context?.profile ?? null };
      break;
    case 'verify.started':
      items.push({ kind: 'verify', id: `verify:${e.turnId}:${d.attempt}`, command: d.command, attempt: d.attempt, maxAttempts: d.maxAttempts, passed: null, exitCode: null, output: '', ...(d.timeoutMs ? { timeoutMs: d.timeoutMs } : {}) });
      break;
    case 'verify.result': {
      const key = `verify:${e.turnId}:${d.attempt}`;
      const i = items.findIndex((it) => it.id === key);
      const prev = i >= 0 ? (items[i] as { maxAttempts: number; timeoutMs?: number }) : null;
      const v = { kind: 'verify' as const, id: key, command: d.command, attempt: d.attempt, maxAttempts: prev ? prev.maxAttempts : d.attempt, passed: d.passed, exitCode: d.exitCode, output: d.output, ...(prev?.timeoutMs ? { timeoutMs: prev.timeoutMs } : {}) };
      if (i >= 0) items[i] = v;
      else items.push(v);
      break;
    }
    case 'verify.skipped':
      items.push({ kind: 'notice', id, level: d.reason === 'not_whitelisted' || d.reason === 'attempts_exhausted' ? 'warning' : 'info', text: d.message });
      break;
    case 'command.result': {
      const turnItems = items.slice(t.turnStart);
      // A `!` command that ran (or was refused) already has its tool card with the output.
      if (d.kind === 'bang' && turnItems.some((it) => it.kind === 'tool')) break;
      // `/compact` that compacted is already one compaction block; its text would repeat it.
      if (d.kind === 'slash' && d.name === 'compact' && d.ok && turnItems.some((it) => it.kind === 'compaction')) break;
      items.push({ kind: 'command', id, name: d.name, cmdKind: d.kind, ok: d.ok, text: d.text, exitCode: d.exitCode, view: d.view ?? null, actions: d.actions ?? [] });
      break;
    }
    case 'mode.changed':
      out.mode = d.mode;
      items.push({ kind: 'notice', id, level: 'info', text: `Mode: ${MODE_LABEL[d.mode]}` });
      break;
    case 'model.changed':
      items.push({
        kind: 'notice',
        id,
        level: d.persistError ? 'warning' : 'info',
        text: `Model: ${d.model} (${d.profile})${d.persistedTo ? ` — saved to ${d.persistedTo}` : ''}${d.persistError ? ` — not saved: ${d.persistError}` : ''}`,
      });
      break;
    case 'permissions.changed':
      items.push({ kind: 'notice', id, level: 'info', text: `Policy preset: ${d.preset}` });
      break;
    case 'error':
      items.push({ kind: 'error', id, code: d.code, message: d.message, retryable: d.retryable });
      break;
    case 'notice': {
      const started = CLAUDE_STARTED.exec(d.text);
      if (started) {
        if (t.announced.includes(started[1]!)) break;
        out.announced = [...t.announced, started[1]!];
      }
      items.push({ kind: 'notice', id, level: d.level, text: d.text });
      break;
    }
    case 'status':
      out.running = d.status === 'running' || d.status === 'awaiting_approval';
      break;
    case 'usage':
      if (d.purpose === 'turn') out.context = { tokens: contextTokens(d.usage), profile: d.profile };
      break;
    case 'step.started':
    case 'session.switched':
      break;
    case 'rewound':
      foldRewind(out, items, d.toTurn, id);
      break;
  }
  return out;
}

/**
 * Whether the newest turns of a log, folded on their own (a long session's first open shows them
 * before the rest is read), come out at the bottom of the view as in the whole log's fold. Not
 * when they hold a `/rewind`: it folds turns counted from the session's start. What else looks
 * back changes only their first turn, far above the bottom the view opens at (a Claude Code
 * "started" notice already shown earlier) or nothing shown (todos come from the session, the
 * mode and the context meter from each turn).
 */
export function tailFoldsAlone(events: readonly AgentEvent[]): boolean {
  return !events.some((e) => e.data.type === 'rewound');
}

/** Whether an item starts a chat turn (the turns `/rewind` and the turn menu number). */
export function isChatTurn(it: TranscriptItem): it is Extract<TranscriptItem, { kind: 'user' }> {
  return it.kind === 'user' && it.inputKind === 'chat';
}

/**
 * `/rewind N` folds the items from chat turn N+1 up to the running (/rewind) turn into one
 * 'rewound' item; `/rewind undo` (toTurn null) unfolds the last one where it stood.
 */
function foldRewind(out: Transcript, items: TranscriptItem[], toTurn: number | null, id: string): void {
  const end = Math.min(out.turnStart, items.length);
  if (toTurn === null) {
    for (let i = end - 1; i >= 0; i--) {
      const it = items[i]!;
      if (it.kind !== 'rewound') continue;
      items.splice(i, 1, ...it.items);
      out.turnStart += it.items.length - 1;
      return;
    }
    return;
  }
  let seen = 0;
  for (let i = 0; i < end; i++) {
    if (!isChatTurn(items[i]!)) continue;
    seen++;
    if (seen !== toTurn + 1) continue;
    const moved = items.slice(i, end);
    const last = toTurn + moved.filter(isChatTurn).length;
    items.splice(i, end - i, { kind: 'rewound', id, toTurn, fromTurn: toTurn + 1, toLast: last, items: moved });
    out.turnStart = i + 1;
    return;
  }
}

/** The files write/patch calls named in some items (a turn menu's "what will change"). */
export function editedPaths(items: readonly TranscriptItem[], root?: string): string[] {
  const out = new Set<string>();
  for (const it of items) {
    if (it.kind !== 'tool' || (it.tool !== 'write' && it.tool !== 'patch') || it.result?.isError) continue;
    const input = parseToolInput(it.inputJson);
    // Claude Code's cards carry its own input: `file_path`, absolute when inside the session's folder.
    const p = input?.path ?? input?.file_path;
    if (typeof p === 'string') out.add(root && p.startsWith(`${root}/`) ? p.slice(root.length + 1) : p);
  }
  return [...out];
}

/** The tool input as an object once its JSON is complete; null while it streams or if malformed. */
export function parseToolInput(json: string): Record<string, unknown> | null {
  if (!json) return null;
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** One line describing a tool call for its card header. */
export function toolSummary(tool: string, input: Record<string, unknown> | null): string {
  if (!input) return tool;
  const s = (k: string) => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  switch (tool) {
    case 'bash':
      return s('command') ?? 'bash';
    case 'read':
    case 'write':
    case 'patch':
      return `${tool} ${s('path') ?? s('file_path') ?? ''}`.trim();
    case 'glob':
    case 'grep':
      return `${tool} ${s('pattern') ?? ''}`.trim();
    case 'todo':
      return 'update todo list';
    default:
      return tool;
  }
}

/**
 * Command files: the mailbox's input. A command file is Markdown with a YAML front matter
 * (`id`, `created_at`, `session_id`, `command_type`, plus the optional keys Flightdeck
 * understands) and the sections "任务描述" / "Task" (required), "约束条件" / "Constraints" and
 * "预期输出" / "Expected output". See docs/mailbox.md.
 *
 * This module is pure: bytes in, a typed command or the list of everything wrong with the file
 * out. Files come from any tool (a script, a plan agent, an editor), so every rejection names
 * the field, the value and the line, and one pass reports every problem it can find rather
 * than stopping at the first. Checks that need the mailbox's state (known sessions, ids
 * already used) live in `checkCommandAgainstState`.
 */
import { LineCounter, parseDocument, isMap, isScalar, stringify } from 'yaml';
import {
  MAX_CONTAINER_CPUS,
  MAX_CONTAINER_PIDS,
  MIN_CONTAINER_CPUS,
  MIN_CONTAINER_MEMORY_BYTES,
  MIN_CONTAINER_PIDS,
  memorySizeText,
  parseMemorySize,
} from '../../src-preload/contract/containers';
import { AppError } from '../../src-preload/contract/errors';

/**
 * The largest command file read at all. A task description is prose: 1 MiB is hundreds of
 * pages, and the limit is checked before decoding so a huge or endless file costs nothing.
 */
export const MAX_COMMAND_FILE_BYTES = 1024 * 1024;

/**
 * How many YAML aliases the front matter may expand. A real command file has no use for more
 * than a handful; a "billion laughs" document nests aliases to expand exponentially, and the
 * yaml package stops as soon as the expansion exceeds this budget.
 */
export const MAX_YAML_ALIASES = 10;

/** Longest value quoted back in a problem message, so an error file stays readable. */
const MAX_QUOTED_VALUE = 80;

/**
 * Ids and session ids become file names (`report-<id>.md`, `sessions/<session_id>.json`,
 * `logs/debug-<id>.log`): letters, digits, `.`, `_`, `-`, starting with a letter or digit
 * (so never `.` or `..`), at most 128 characters (far below any file-name limit).
 */
export const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Bounds of the `timeout` key: below a second no agent starts; above a day is a mistake. */
export const MIN_TIMEOUT_MS = 1000;
export const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** More GPUs than any single machine has: a larger count is a typo. */
const MAX_GPU_COUNT = 64;

export const COMMAND_TYPES = ['new', 'continue', 'end'] as const;
export type CommandType = (typeof COMMAND_TYPES)[number];
export const PLACEMENTS = ['host', 'container'] as const;
export type Placement = (typeof PLACEMENTS)[number];

export const NETWORKS = ['bridge', 'host', 'none'] as const;
export type Network = (typeof NETWORKS)[number];

/**
 * The keys that shape the task's container (besides `gpus`, which predates them and keeps its
 * meaning everywhere). They mean something only with `placement: container`: written with any
 * other placement, or on an end command, the file is rejected naming the key rather than the
 * setting being silently ignored.
 */
export const CONTAINER_KEYS = ['container_engine', 'image', 'memory', 'cpus', 'pids', 'network'] as const;

/** Longest image reference and Docker engine name (the containers contract's bounds). */
const MAX_IMAGE_LENGTH = 500;
const MAX_ENGINE_NAME_LENGTH = 64;

export type GpuRequest = { kind: 'all' } | { kind: 'count'; count: number } | { kind: 'ids'; ids: string[] };

/** The front-matter keys this module knows; any other key is kept in `extra` with a warning. */
const KNOWN_KEYS = ['id', 'created_at', 'session_id', 'command_type', 'project', 'placement', 'engine', 'gpus', 'timeout', ...CONTAINER_KEYS] as const;

export type SectionName = 'task' | 'constraints' | 'expectedOutput';

/**
 * The headings of each section, compared after trimming, case-insensitively, and without an
 * "(optional)" / "（可选）" suffix (the format's own template writes `## 约束条件（可选）`).
 */
const SECTION_HEADINGS: Record<SectionName, readonly string[]> = {
  task: ['任务描述', 'task', 'task description'],
  constraints: ['约束条件', 'constraints'],
  expectedOutput: ['预期输出', 'expected output'],
};

const SECTION_LABELS: Record<SectionName, string> = { task: 'task', constraints: 'constraints', expectedOutput: 'expected output' };

export type HeadingLanguage = 'zh' | 'en';
const WRITTEN_HEADINGS: Record<HeadingLanguage, Record<SectionName, string>> = {
  zh: { task: '任务描述', constraints: '约束条件', expectedOutput: '预期输出' },
  en: { task: 'Task', constraints: 'Constraints', expectedOutput: 'Expected output' },
};

export type ProblemCode =
  | 'too_large'
  | 'not_a_file'
  | 'empty_file'
  | 'not_utf8'
  | 'binary'
  | 'no_front_matter'
  | 'unterminated_front_matter'
  | 'tab_in_front_matter'
  | 'bad_yaml'
  | 'yaml_alias_limit'
  | 'front_matter_not_mapping'
  | 'invalid_key'
  | 'missing_field'
  | 'invalid_field'
  | 'container_key_without_container'
  | 'unknown_command_type'
  | 'session_id_for_new'
  | 'session_id_required'
  | 'missing_task_section'
  | 'empty_task_section'
  | 'duplicate_section'
  | 'unknown_key'
  | 'unknown_section'
  | 'text_before_sections'
  | 'unknown_session'
  | 'session_ended'
  | 'duplicate_id';

/** One thing wrong with (or, as a warning, odd about) a command file. `message` is complete on its own. */
export interface CommandProblem {
  code: ProblemCode;
  message: string;
  field?: string;
  value?: string;
  /** 1-based line in the file (the front matter's opening `---` is line 1). */
  line?: number;
}

export interface CommandFile {
  id: string;
  /** As written (ISO 8601); `createdAtMs` is the same instant. */
  createdAt: string;
  createdAtMs: number;
  commandType: CommandType;
  /** The session a `continue` / `end` names; null for `new` (written as `auto` or left empty). */
  sessionId: string | null;
  task: string;
  constraints?: string;
  expectedOutput?: string;
  project?: string;
  placement?: Placement;
  engine?: string;
  gpus?: GpuRequest;
  timeoutMs?: number;
  /** `container_engine`: the Docker engine (Settings → Engines) the task's container runs on. */
  containerEngine?: string;
  /** `image`: the container's image (a local one; Flightdeck never pulls). */
  image?: string;
  /** `memory` (`8g`, `512m` or bytes), `cpus` and `pids`: the container's limits. */
  memoryBytes?: number;
  cpus?: number;
  pids?: number;
  network?: Network;
  /** Front-matter keys Flightdeck does not know, kept as written (a warning names each). */
  extra: Record<string, unknown>;
}

export type ParseResult = { ok: true; command: CommandFile; warnings: CommandProblem[] } | { ok: false; problems: CommandProblem[]; warnings: CommandProblem[] };

/**
 * Shows a value in a message: text in double quotes (control characters escaped), anything
 * else as JSON (`42`, `[0,0]`, `null`) so a number is not mistaken for text; shortened.
 */
export function quoteValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > MAX_QUOTED_VALUE ? `${v.slice(0, MAX_QUOTED_VALUE)}…` : v);
  let s: string;
  try {
    s = v === undefined ? 'undefined' : (JSON.stringify(v) ?? String(v));
  } catch {
    // A value JSON cannot represent (a cycle from YAML aliases): its type is description enough.
    s = Object.prototype.toString.call(v);
  }
  return s.length > MAX_QUOTED_VALUE ? `${s.slice(0, MAX_QUOTED_VALUE)}…` : s;
}

function at(line: number | undefined): string {
  return line === undefined ? '' : `line ${line}: `;
}

/**
 * Parses a command file from its bytes (a string is taken as already decoded). Never throws
 * for bad input: every problem found is returned.
 */
export function parseCommandFile(input: Uint8Array | string): ParseResult {
  const warnings: CommandProblem[] = [];
  const fail = (...problems: CommandProblem[]): ParseResult => ({ ok: false, problems, warnings });

  let text: string;
  if (typeof input === 'string') {
    if (Buffer.byteLength(input, 'utf8') > MAX_COMMAND_FILE_BYTES) return fail(tooLargeProblem(Buffer.byteLength(input, 'utf8')));
    text = input;
  } else {
    if (input.byteLength > MAX_COMMAND_FILE_BYTES) return fail(tooLargeProblem(input.byteLength));
    try {
      // fatal: a byte sequence that is not UTF-8 is an error, never silently U+FFFD.
      // ignoreBOM: keep a BOM in the text so it is stripped once, below, for strings and bytes alike.
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      return fail(notUtf8(input));
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return fail({ code: 'empty_file', message: 'The file is empty: a command file starts with a front matter between "---" lines.' });

  const lines = text.split(/\r\n|\n|\r/);
  const control = findControlCharacter(lines);
  if (control) return fail(control);

  if (lines[0]!.trimEnd() !== '---') {
    return fail({ code: 'no_front_matter', line: 1, value: lines[0], message: `line 1: the file must start with a front matter: a line "---", the YAML keys (id, created_at, session_id, command_type), and another "---"; it starts with ${quoteValue(lines[0])}.` });
  }
  let close = -1;
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i]!.trimEnd();
    if (l === '---' || l === '...') {
      close = i;
      break;
    }
  }
  if (close < 0) return fail({ code: 'unterminated_front_matter', line: 1, message: 'line 1: the front matter opened here is never closed by a "---" line.' });

  const problems: CommandProblem[] = [];
  const fmLines = lines.slice(1, close);
  for (let i = 0; i < fmLines.length; i++) {
    const col = fmLines[i]!.indexOf('\t');
    if (col >= 0) problems.push({ code: 'tab_in_front_matter', line: i + 2, message: `line ${i + 2}, column ${col + 1}: the front matter contains a tab; YAML accepts only spaces there.` });
  }
  if (problems.length > 0) return fail(...problems);

  const fm = parseFrontMatter(fmLines.join('\n'), 2);
  if (!fm.ok) return fail(...fm.problems);

  const body = parseBody(lines, close + 1);
  const command = validateFields(fm.values, fm.lines, problems, warnings);
  problems.push(...body.problems);
  warnings.push(...body.warnings);
  if (problems.length > 0 || !command) return fail(...problems);
  const result: CommandFile = { ...command, task: body.sections.task! };
  if (body.sections.constraints !== undefined) result.constraints = body.sections.constraints;
  if (body.sections.expectedOutput !== undefined) result.expectedOutput = body.sections.expectedOutput;
  return { ok: true, command: result, warnings };
}

/** The problem of a file over `MAX_COMMAND_FILE_BYTES` (also used by readers that refuse it before reading). */
export function tooLargeProblem(size: number): CommandProblem {
  return { code: 'too_large', value: String(size), message: `The file is ${size} bytes; a command file may be at most ${MAX_COMMAND_FILE_BYTES} bytes (1 MiB).` };
}

/** Names the first byte where the input stops being UTF-8, with its line. */
function notUtf8(bytes: Uint8Array): CommandProblem {
  let line = 1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    let ok = need >= 0 && i + need < bytes.length;
    for (let k = 1; ok && k <= need; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok && need === 2) ok = !(b === 0xe0 && bytes[i + 1]! < 0xa0) && !(b === 0xed && bytes[i + 1]! >= 0xa0);
    if (ok && need === 3) ok = !(b === 0xf0 && bytes[i + 1]! < 0x90) && !(b === 0xf4 && bytes[i + 1]! >= 0x90);
    if (!ok) break;
    if (b === 0x0a) line++;
    i += need + 1;
  }
  // A byte order mark of UTF-16 (little or big endian): the most common non-UTF-8 save on Windows.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return { code: 'not_utf8', line: 1, message: 'line 1: the file is UTF-16 text, not UTF-8; save it as UTF-8.' };
  }
  const hex = bytes[i] === undefined ? 'the end of the file' : `byte 0x${bytes[i]!.toString(16).padStart(2, '0')}`;
  return { code: 'not_utf8', line, message: `line ${line}: the file is not UTF-8 text (invalid ${hex} at offset ${i}); save it as UTF-8.` };
}

/** Text with NUL or other C0 controls (but tab, form feed and line breaks) is binary data, not a command. */
function findControlCharacter(lines: string[]): CommandProblem | undefined {
  for (let i = 0; i < lines.length; i++) {
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    const m = /[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.exec(lines[i]!);
    if (m) {
      const code = `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
      return { code: 'binary', line: i + 1, value: code, message: `line ${i + 1}, column ${m.index + 1}: the file contains the control character ${code}; it looks like binary data, not a Markdown command file.` };
    }
  }
  return undefined;
}

type FrontMatter = { ok: true; values: Map<string, unknown>; lines: Map<string, number> } | { ok: false; problems: CommandProblem[] };

/** Parses the YAML between the `---` lines; `firstLine` is the file line of its first line. */
function parseFrontMatter(source: string, firstLine: number): FrontMatter {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: true, uniqueKeys: true, version: '1.2' });
  const fileLine = (offset: number) => lineCounter.linePos(offset).line + firstLine - 1;
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((e) => {
        const line = e.linePos ? e.linePos[0].line + firstLine - 1 : undefined;
        const what = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
        return { code: 'bad_yaml' as const, line, message: `${at(line)}the front matter is not valid YAML: ${what}.` };
      }),
    };
  }
  if (doc.contents === null) return { ok: true, values: new Map(), lines: new Map() };
  if (!isMap(doc.contents)) {
    const line = doc.contents.range ? fileLine(doc.contents.range[0]) : firstLine;
    return { ok: false, problems: [{ code: 'front_matter_not_mapping', line, message: `line ${line}: the front matter must be "key: value" lines, not a single value or a list.` }] };
  }
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    if (e instanceof ReferenceError) {
      return { ok: false, problems: [{ code: 'yaml_alias_limit', message: `The front matter's YAML aliases expand beyond ${MAX_YAML_ALIASES} nodes (an "alias bomb"); a command file needs a few at most.` }] };
    }
    return { ok: false, problems: [{ code: 'bad_yaml', message: `The front matter is not valid YAML: ${(e as Error).message}.` }] };
  }
  const problems: CommandProblem[] = [];
  const values = new Map<string, unknown>();
  const lines = new Map<string, number>();
  const obj = js as Record<string, unknown>;
  for (const pair of doc.contents.items) {
    const key = pair.key;
    const line = isScalar(key) && key.range ? fileLine(key.range[0]) : undefined;
    if (!isScalar(key) || typeof key.value !== 'string') {
      const shown = isScalar(key) ? key.value : String(key);
      problems.push({ code: 'invalid_key', line, value: String(shown), message: `${at(line)}the front-matter key ${quoteValue(shown)} is not a plain name.` });
      continue;
    }
    values.set(key.value, obj[key.value]);
    if (line !== undefined) lines.set(key.value, line);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, values, lines };
}

function validateFields(values: Map<string, unknown>, lines: Map<string, number>, problems: CommandProblem[], warnings: CommandProblem[]): Omit<CommandFile, 'task'> | undefined {
  const bad = (code: ProblemCode, field: string, value: unknown, why: string) => {
    const line = lines.get(field);
    problems.push({ code, field, value: value === undefined ? undefined : quoteValue(value), line, message: `${at(line)}${why}` });
  };
  const missing = (field: string, what: string) => problems.push({ code: 'missing_field', field, message: `The front matter has no "${field}"; ${what}.` });

  const id = values.get('id');
  if (!values.has('id') || id === null || id === '') missing('id', 'every command needs a unique id such as "task-<uuid>"');
  else if (typeof id !== 'string') bad('invalid_field', 'id', id, `id is ${quoteValue(id)} (${typeName(id)}); it must be text such as "task-<uuid>" (quote a number).`);
  else if (!SAFE_ID.test(id)) bad('invalid_field', 'id', id, `id ${quoteValue(id)} is not usable: it names report and log files, so it may hold only letters, digits, ".", "_" and "-", start with a letter or digit, and be at most 128 characters.`);

  const createdAt = values.get('created_at');
  let createdAtMs = NaN;
  if (!values.has('created_at') || createdAt === null || createdAt === '') missing('created_at', 'it is the time the command was written, in ISO 8601 such as "2026-02-22T10:00:00Z"');
  else if (typeof createdAt !== 'string') bad('invalid_field', 'created_at', createdAt, `created_at is ${quoteValue(createdAt)} (${typeName(createdAt)}); it must be an ISO 8601 time such as "2026-02-22T10:00:00Z".`);
  else {
    createdAtMs = parseIsoTime(createdAt);
    if (Number.isNaN(createdAtMs)) bad('invalid_field', 'created_at', createdAt, `created_at ${quoteValue(createdAt)} is not an ISO 8601 time such as "2026-02-22T10:00:00Z".`);
  }

  const type = values.get('command_type');
  let commandType: CommandType | undefined;
  if (!values.has('command_type') || type === null || type === '') missing('command_type', 'it must be new, continue or end');
  else if (typeof type !== 'string' || !(COMMAND_TYPES as readonly string[]).includes(type)) bad('unknown_command_type', 'command_type', type, `command_type is ${quoteValue(type)}; it must be new, continue or end.`);
  else commandType = type as CommandType;

  const sid = values.get('session_id');
  let sessionId: string | null = null;
  const sessionEmpty = sid === null || sid === undefined || sid === '';
  if (!values.has('session_id') && (commandType === 'continue' || commandType === 'end')) {
    missing('session_id', `${article(commandType)} command names the session it ${commandType === 'end' ? 'ends' : 'continues'}`);
  } else if (!sessionEmpty && typeof sid !== 'string') {
    bad('invalid_field', 'session_id', sid, `session_id is ${quoteValue(sid)} (${typeName(sid)}); it must be "auto" or a session id (quote a number).`);
  } else if (commandType === 'new') {
    if (!sessionEmpty && sid !== 'auto') bad('session_id_for_new', 'session_id', sid, `session_id is ${quoteValue(sid)}, but a new command starts a new session: write "session_id: auto" or leave it empty, or use command_type: continue to continue that session.`);
  } else if (commandType) {
    if (sessionEmpty || sid === 'auto') bad('session_id_required', 'session_id', sessionEmpty ? '' : sid, `session_id is ${sessionEmpty ? 'empty' : '"auto"'}, but ${article(commandType)} command must name the existing session it ${commandType === 'end' ? 'ends' : 'continues'}.`);
    else if (!SAFE_ID.test(sid as string)) bad('invalid_field', 'session_id', sid, `session_id ${quoteValue(sid)} is not a session id: letters, digits, ".", "_" and "-" only, starting with a letter or digit, at most 128 characters.`);
    else sessionId = sid as string;
  }

  const out: Omit<CommandFile, 'task'> = { id: id as string, createdAt: createdAt as string, createdAtMs, commandType: commandType!, sessionId, extra: {} };

  const project = values.get('project');
  if (values.has('project')) {
    if (typeof project !== 'string' || project.trim() === '') bad('invalid_field', 'project', project, `project is ${quoteValue(project)}; it must be the name or id of a Flightdeck project.`);
    else out.project = project;
  }
  const placement = values.get('placement');
  if (values.has('placement')) {
    if (typeof placement !== 'string' || !(PLACEMENTS as readonly string[]).includes(placement)) bad('invalid_field', 'placement', placement, `placement is ${quoteValue(placement)}; it must be host or container.`);
    else out.placement = placement as Placement;
  }
  const engine = values.get('engine');
  if (values.has('engine')) {
    if (typeof engine !== 'string' || engine.trim() === '') bad('invalid_field', 'engine', engine, `engine is ${quoteValue(engine)}; it must name an agent engine such as "claude-code".`);
    else out.engine = engine;
  }
  if (values.has('gpus')) {
    const gpus = parseGpus(values.get('gpus'));
    if (typeof gpus === 'string') bad('invalid_field', 'gpus', values.get('gpus'), `gpus is ${quoteValue(values.get('gpus'))}; ${gpus}`);
    else out.gpus = gpus;
  }
  if (values.has('timeout')) {
    const t = parseTimeout(values.get('timeout'));
    if (typeof t === 'string') bad('invalid_field', 'timeout', values.get('timeout'), `timeout is ${quoteValue(values.get('timeout'))}; ${t}`);
    else out.timeoutMs = t;
  }

  validateContainerKeys(values, bad, out);

  for (const [key, value] of values) {
    if ((KNOWN_KEYS as readonly string[]).includes(key)) continue;
    out.extra[key] = value;
    const line = lines.get(key);
    warnings.push({ code: 'unknown_key', field: key, value: quoteValue(value), line, message: `${at(line)}the front-matter key "${key}" is not one Flightdeck knows; it is kept but has no effect.` });
  }
  return problems.length > 0 ? undefined : out;
}

export type ContainerKey = (typeof CONTAINER_KEYS)[number];
export type ContainerFields = Pick<CommandFile, 'containerEngine' | 'image' | 'memoryBytes' | 'cpus' | 'pids' | 'network'>;

/**
 * The container keys given as text, as the CLI's flags give them: the same rules and messages
 * as in a command file (with `placement: container` taken as given).
 */
export function parseContainerKeys(raw: Partial<Record<ContainerKey, string>>): { ok: true; fields: ContainerFields } | { ok: false; problems: string[] } {
  const values = new Map<string, unknown>(Object.entries(raw).filter(([, v]) => v !== undefined));
  values.set('placement', 'container');
  const problems: string[] = [];
  const out: Omit<CommandFile, 'task'> = { id: '', createdAt: '', createdAtMs: 0, commandType: 'new', sessionId: null, extra: {} };
  validateContainerKeys(values, (_code, _field, _value, why) => problems.push(why), out);
  if (problems.length > 0) return { ok: false, problems };
  const { containerEngine, image, memoryBytes, cpus, pids, network } = out;
  return { ok: true, fields: { ...(containerEngine !== undefined ? { containerEngine } : {}), ...(image !== undefined ? { image } : {}), ...(memoryBytes !== undefined ? { memoryBytes } : {}), ...(cpus !== undefined ? { cpus } : {}), ...(pids !== undefined ? { pids } : {}), ...(network !== undefined ? { network } : {}) } };
}

/** The container keys: each value checked on its own, then whether the command may carry them at all. */
function validateContainerKeys(values: Map<string, unknown>, bad: (code: ProblemCode, field: string, value: unknown, why: string) => void, out: Omit<CommandFile, 'task'>): void {
  const engine = values.get('container_engine');
  if (values.has('container_engine')) {
    if (typeof engine !== 'string' || engine.trim() === '' || engine.length > MAX_ENGINE_NAME_LENGTH) bad('invalid_field', 'container_engine', engine, `container_engine is ${quoteValue(engine)}; it must name a Docker engine as listed in Settings → Engines or by \`containers engines\` (e.g. "local"), at most ${MAX_ENGINE_NAME_LENGTH} characters.`);
    else out.containerEngine = engine;
  }
  const image = values.get('image');
  if (values.has('image')) {
    if (typeof image !== 'string' || image.trim() === '' || /\s/.test(image) || image.length > MAX_IMAGE_LENGTH) bad('invalid_field', 'image', image, `image is ${quoteValue(image)}; it must be a local image reference without spaces, such as "flightdeck-agent:latest".`);
    else out.image = image;
  }
  const memory = values.get('memory');
  if (values.has('memory')) {
    const bytes = typeof memory === 'number' ? (Number.isInteger(memory) && memory > 0 ? memory : null) : typeof memory === 'string' ? parseMemorySize(memory) : null;
    if (bytes === null) bad('invalid_field', 'memory', memory, `memory is ${quoteValue(memory)}; it must be a size such as "512m", "8g", "1.5GiB" or a number of bytes.`);
    else if (bytes < MIN_CONTAINER_MEMORY_BYTES) bad('invalid_field', 'memory', memory, `memory is ${quoteValue(memory)} (${bytes} bytes); the engine refuses less than 6 MiB ("6m"). A bare number is bytes: write "512m" for 512 MiB.`);
    else if (!Number.isSafeInteger(bytes)) bad('invalid_field', 'memory', memory, `memory is ${quoteValue(memory)}; that is more memory than any machine has.`);
    else out.memoryBytes = bytes;
  }
  const cpus = values.get('cpus');
  if (values.has('cpus')) {
    const n = typeof cpus === 'number' ? cpus : typeof cpus === 'string' && /^\s*\d*\.?\d+\s*$/.test(cpus) ? Number(cpus) : NaN;
    if (!Number.isFinite(n) || n < MIN_CONTAINER_CPUS || n > MAX_CONTAINER_CPUS) bad('invalid_field', 'cpus', cpus, `cpus is ${quoteValue(cpus)}; it must be a number of CPUs from ${MIN_CONTAINER_CPUS} to ${MAX_CONTAINER_CPUS}, such as 2 or 0.5.`);
    else out.cpus = n;
  }
  const pids = values.get('pids');
  if (values.has('pids')) {
    const n = typeof pids === 'number' ? pids : typeof pids === 'string' && /^\s*\d+\s*$/.test(pids) ? Number(pids) : NaN;
    if (!Number.isInteger(n) || n < MIN_CONTAINER_PIDS || n > MAX_CONTAINER_PIDS) bad('invalid_field', 'pids', pids, `pids is ${quoteValue(pids)}; it must be a whole number of processes from ${MIN_CONTAINER_PIDS} to ${MAX_CONTAINER_PIDS}, such as 4096.`);
    else out.pids = n;
  }
  const network = values.get('network');
  if (values.has('network')) {
    if (typeof network !== 'string' || !(NETWORKS as readonly string[]).includes(network)) bad('invalid_field', 'network', network, `network is ${quoteValue(network)}; it must be bridge, host or none.`);
    else out.network = network as Network;
  }

  // Only a container has these settings: anywhere else they would be silently ignored.
  const placement = values.get('placement');
  const type = values.get('command_type');
  for (const key of CONTAINER_KEYS) {
    if (!values.has(key)) continue;
    if (type === 'end') bad('container_key_without_container', key, values.get(key), `${key} is a container setting, but an end command runs no agent turn; remove ${key}.`);
    else if (placement !== 'container') {
      const says = values.has('placement') ? `says placement: ${typeof placement === 'string' ? placement : quoteValue(placement)}` : 'has no "placement: container"';
      bad('container_key_without_container', key, values.get(key), `${key} is a container setting, but this command ${says}; add "placement: container" or remove ${key}.`);
    }
  }
}

/** "a continue", "an end". */
function article(t: CommandType): string {
  return t === 'end' ? 'an end' : `a ${t}`;
}

function typeName(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'empty';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return 'true/false';
  return typeof v;
}

/**
 * ISO 8601 calendar date and time (`T` or space), optional seconds and fraction, optional zone
 * (`Z` or ±hh:mm / ±hhmm); a time without a zone is read as UTC so a command means the same
 * instant on every machine. Returns NaN for anything else, including 2026-02-30.
 */
export function parseIsoTime(s: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return NaN;
  const [, y, mo, d, h, mi, sec = '0', frac = '0', zone = 'Z'] = m;
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(sec);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return NaN;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return NaN;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(Number(`0.${frac}`) * 1000));
  if (zone !== 'Z' && zone !== 'z') {
    const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    const offset = (Number(zm[2]) * 60 + Number(zm[3])) * 60_000;
    if (Number(zm[2]) > 23 || Number(zm[3]) > 59) return NaN;
    ms -= zm[1] === '+' ? offset : -offset;
  }
  return ms;
}

/** `all`, a count, a list of device ids, or ids separated by commas. Returns the reason when invalid. */
export function parseGpus(v: unknown): GpuRequest | string {
  const expected = 'it must be "all", a number of GPUs, or a list of device ids such as [0, 1] or "0,1".';
  if (v === 'all') return { kind: 'all' };
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= MAX_GPU_COUNT ? { kind: 'count', count: v } : `a count must be a whole number from 0 to ${MAX_GPU_COUNT}; ${expected}`;
  let ids: unknown[] | undefined;
  if (Array.isArray(v)) ids = v;
  else if (typeof v === 'string' && v.includes(',')) ids = v.split(',').map((s) => s.trim());
  else if (typeof v === 'string' && /^[A-Za-z0-9:_.-]+$/.test(v)) ids = [v];
  if (!ids || ids.length === 0) return expected;
  const out: string[] = [];
  for (const id of ids) {
    const s = typeof id === 'number' && Number.isInteger(id) && id >= 0 ? String(id) : id;
    // Device ids are indexes or UUIDs ("GPU-8f3c…"): nothing else is passed to the container runtime.
    if (typeof s !== 'string' || !/^[A-Za-z0-9:_.-]{1,80}$/.test(s)) return `device id ${quoteValue(id)} is not an index or a GPU UUID; ${expected}`;
    if (out.includes(s)) return `device id ${quoteValue(s)} is listed twice; ${expected}`;
    out.push(s);
  }
  return { kind: 'ids', ids: out };
}

const TIMEOUT_UNITS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** Seconds as a number, or a number with a unit (ms, s, m/min, h) such as "10m". Returns the reason when invalid. */
export function parseTimeout(v: unknown): number | string {
  const range = `it must lie between 1 second and 24 hours (a number of seconds, or "90s", "10m", "2h").`;
  let ms: number;
  if (typeof v === 'number') ms = v * 1000;
  else if (typeof v === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min|h)?\s*$/i.exec(v);
    if (!m) return range;
    ms = Number(m[1]) * TIMEOUT_UNITS[(m[2] ?? 's').toLowerCase()]!;
  } else return range;
  if (!Number.isFinite(ms) || ms < MIN_TIMEOUT_MS || ms > MAX_TIMEOUT_MS) return range;
  return Math.round(ms);
}

interface Body {
  sections: Partial<Record<SectionName, string>>;
  problems: CommandProblem[];
  warnings: CommandProblem[];
}

function sectionOf(heading: string): SectionName | undefined {
  const h = heading
    .trim()
    .replace(/\s*[（(]\s*(可选|optional)\s*[)）]\s*$/i, '')
    .trim()
    .toLowerCase();
  for (const [name, titles] of Object.entries(SECTION_HEADINGS) as [SectionName, readonly string[]][]) if (titles.includes(h)) return name;
  return undefined;
}

/** Text of a section: its lines without the blank lines at either end, line breaks as "\n". */
export function normalizeSectionText(s: string): string {
  const lines = s.split(/\r\n|\n|\r/).map((l) => l.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** Splits the body at level-2 headings outside fenced code blocks. `start` is the index of the body's first line. */
function parseBody(lines: string[], start: number): Body {
  const problems: CommandProblem[] = [];
  const warnings: CommandProblem[] = [];
  const sections: Partial<Record<SectionName, string>> = {};
  const headingLine: Partial<Record<SectionName, number>> = {};
  let current: { name: SectionName | null; line: number; text: string[] } | undefined;
  const preamble: string[] = [];
  let fence: string | null = null;
  const finish = () => {
    if (current?.name) sections[current.name] = normalizeSectionText(current.text.join('\n'));
  };
  for (let i = start; i < lines.length; i++) {
    const l = lines[i]!;
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(l);
    let heading: RegExpExecArray | null = null;
    if (fenceMatch) {
      // A fence closes only with the same character, at least as long, and nothing after it.
      if (fence === null) fence = fenceMatch[1]!;
      else if (fenceMatch[1]![0] === fence[0] && fenceMatch[1]!.length >= fence.length && l.trim() === fenceMatch[1]) fence = null;
    } else if (fence === null) heading = /^ {0,3}##[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(l);
    if (heading) {
      finish();
      const name = sectionOf(heading[1]!) ?? null;
      if (name === null) {
        warnings.push({ code: 'unknown_section', line: i + 1, value: quoteValue(heading[1]), message: `line ${i + 1}: the section ${quoteValue(heading[1])} is not one Flightdeck reads (任务描述 / Task, 约束条件 / Constraints, 预期输出 / Expected output); it is ignored.` });
      } else if (headingLine[name] !== undefined) {
        problems.push({ code: 'duplicate_section', line: i + 1, field: name, message: `line ${i + 1}: the ${SECTION_LABELS[name]} section ${quoteValue(heading[1])} appears a second time (first at line ${headingLine[name]}); write each section once.` });
      } else headingLine[name] = i + 1;
      current = { name, line: i + 1, text: [] };
      continue;
    }
    if (current) current.text.push(l);
    else preamble.push(l);
  }
  finish();
  const firstText = preamble.findIndex((l) => l.trim() !== '');
  if (firstText >= 0) {
    const line = start + firstText + 1;
    warnings.push({ code: 'text_before_sections', line, message: `line ${line}: text before the first "## " section is ignored; put the task under "## 任务描述" or "## Task".` });
  }
  if (headingLine.task === undefined) {
    problems.push({ code: 'missing_task_section', message: 'The file has no task section: add a line "## 任务描述" (or "## Task") followed by what the agent should do.' });
  } else if (sections.task === '' || /^(?:\s|<!--[\s\S]*?-->)*$/.test(sections.task ?? '')) {
    problems.push({ code: 'empty_task_section', line: headingLine.task, field: 'task', message: `line ${headingLine.task}: the task section is empty; write what the agent should do below the heading.` });
  }
  return { sections, problems, warnings };
}

/** The fields of a parsed command, less what the parser derives (`createdAtMs`); `createdAt` is written as given. */
export interface CommandFileInput extends Omit<CommandFile, 'createdAtMs' | 'sessionId' | 'extra'> {
  /** Required for continue / end; must be absent or null for new (written as `auto`). */
  sessionId?: string | null;
  extra?: Record<string, unknown>;
  headings?: HeadingLanguage;
}

/**
 * Writes a command file. The result is parsed back before it is returned and must yield the
 * same command: text that would not survive (a "## " line inside a section, a bad id) is
 * refused with the parser's own reasons rather than written and rejected later.
 */
export function formatCommandFile(input: CommandFileInput): string {
  const fm: Record<string, unknown> = {
    id: input.id,
    created_at: input.createdAt,
    session_id: input.commandType === 'new' ? 'auto' : (input.sessionId ?? ''),
    command_type: input.commandType,
  };
  if (input.project !== undefined) fm.project = input.project;
  if (input.placement !== undefined) fm.placement = input.placement;
  if (input.engine !== undefined) fm.engine = input.engine;
  if (input.gpus !== undefined) fm.gpus = input.gpus.kind === 'all' ? 'all' : input.gpus.kind === 'count' ? input.gpus.count : input.gpus.ids;
  if (input.timeoutMs !== undefined) fm.timeout = input.timeoutMs % 1000 === 0 ? input.timeoutMs / 1000 : `${input.timeoutMs}ms`;
  if (input.containerEngine !== undefined) fm.container_engine = input.containerEngine;
  if (input.image !== undefined) fm.image = input.image;
  if (input.memoryBytes !== undefined) fm.memory = formatMemory(input.memoryBytes);
  if (input.cpus !== undefined) fm.cpus = input.cpus;
  if (input.pids !== undefined) fm.pids = input.pids;
  if (input.network !== undefined) fm.network = input.network;
  for (const [k, v] of Object.entries(input.extra ?? {})) if (!(k in fm)) fm[k] = v;
  if (input.commandType === 'new' && input.sessionId) throw new AppError('invalid_input', `A new command starts a new session; it cannot name session ${quoteValue(input.sessionId)}.`);

  const h = WRITTEN_HEADINGS[input.headings ?? 'zh'];
  const parts = ['---', stringify(fm, { lineWidth: 0 }).trimEnd(), '---', '', `## ${h.task}`, '', normalizeSectionText(input.task), ''];
  if (input.constraints !== undefined) parts.push(`## ${h.constraints}`, '', normalizeSectionText(input.constraints), '');
  if (input.expectedOutput !== undefined) parts.push(`## ${h.expectedOutput}`, '', normalizeSectionText(input.expectedOutput), '');
  const text = parts.join('\n');

  const parsed = parseCommandFile(text);
  if (!parsed.ok) throw new AppError('invalid_input', `This command cannot be written: ${parsed.problems.map((p) => p.message).join(' ')}`, { problems: parsed.problems });
  const c = parsed.command;
  const same =
    c.task === normalizeSectionText(input.task) &&
    c.constraints === (input.constraints === undefined ? undefined : normalizeSectionText(input.constraints)) &&
    c.expectedOutput === (input.expectedOutput === undefined ? undefined : normalizeSectionText(input.expectedOutput));
  if (!same || parsed.warnings.some((w) => w.code === 'unknown_section' || w.code === 'text_before_sections')) {
    throw new AppError('invalid_input', 'This command cannot be written: a section contains a line starting with "## " that would be read as a new section (indent it or put it in a code block), or a code block (```) that is never closed and would swallow the next section.');
  }
  return text;
}

/** A byte count as the largest whole binary unit (`8g`, `512m`, `64k`), else the bytes: read back to the same number. */
export function formatMemory(bytes: number): string | number {
  return bytes % 1024 === 0 ? memorySizeText(bytes) : bytes;
}

/** What the mailbox knows when a command arrives: its sessions and the command ids already seen. */
export interface MailboxState {
  sessionStatus: (sessionId: string) => 'active' | 'ended' | undefined;
  isKnownCommandId: (id: string) => boolean;
}

/** The checks that need the mailbox's state: a duplicate id; continue / end naming an unknown or ended session. */
export function checkCommandAgainstState(cmd: CommandFile, state: MailboxState): CommandProblem[] {
  const problems: CommandProblem[] = [];
  if (state.isKnownCommandId(cmd.id)) {
    problems.push({ code: 'duplicate_id', field: 'id', value: quoteValue(cmd.id), message: `id ${quoteValue(cmd.id)} was already used by another command; give every command its own id.` });
  }
  if (cmd.commandType !== 'new' && cmd.sessionId !== null) {
    const status = state.sessionStatus(cmd.sessionId);
    if (status === undefined) {
      problems.push({ code: 'unknown_session', field: 'session_id', value: quoteValue(cmd.sessionId), message: `session_id ${quoteValue(cmd.sessionId)} names no session in this mailbox; use the session_id from an earlier report, or command_type: new.` });
    } else if (status === 'ended') {
      problems.push({ code: 'session_ended', field: 'session_id', value: quoteValue(cmd.sessionId), message: `session ${quoteValue(cmd.sessionId)} has ended; ${article(cmd.commandType)} command needs an active session (start a new one with command_type: new).` });
    }
  }
  return problems;
}

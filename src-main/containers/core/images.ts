/**
 * What the image list and builds need to say, without an engine: the base images a Dockerfile
 * builds on (checked before a build so the engine never pulls one silently) and the user's
 * reading of an engine's refusal to remove an image.
 */
import { AppError } from '../../../src-preload/contract';

/**
 * The heredocs an instruction opens, as BuildKit reads them: only RUN, COPY and ADD have any, and
 * only a whole word (outside quotes) of the form `<<WORD`, `<<-WORD`, `<<"WORD"` or `<<'WORD'`
 * opens one; `<<<` (a here-string), `$((1<<N))` or `<<EOF` inside a quoted string do not.
 */
function heredocsOf(instruction: string): Array<{ word: string; stripTabs: boolean }> {
  if (!/^(RUN|COPY|ADD)\s/i.test(instruction)) return [];
  const words: string[] = [];
  let word = '';
  let quote: string | null = null;
  for (const ch of instruction) {
    if (quote) {
      if (ch === quote) quote = null;
      word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word += ch;
    } else if (/\s/.test(ch)) {
      if (word) words.push(word);
      word = '';
    } else {
      word += ch;
    }
  }
  if (word) words.push(word);
  const out: Array<{ word: string; stripTabs: boolean }> = [];
  for (const w of words) {
    const m = /^\d*<<(-?)(["']?)([A-Za-z_][A-Za-z0-9_]*)\2$/.exec(w);
    if (m) out.push({ word: m[3]!, stripTabs: m[1] === '-' });
  }
  return out;
}

/**
 * The instructions of a Dockerfile, one string each: continuation lines joined (with the escape
 * character its `# escape=` directive chooses, `\` by default), comments skipped, and heredoc
 * bodies (`RUN <<EOF` … `EOF`, BuildKit's syntax) left out, so a line inside one that happens to
 * start with FROM is not taken for an instruction.
 */
export function dockerfileInstructions(dockerfile: string): string[] {
  const lines = dockerfile.split(/\r?\n/);
  let escape = '\\';
  // Parser directives: only at the very top, before any instruction, comment or blank line.
  for (const line of lines) {
    const d = /^#\s*([a-z]+)\s*=\s*(\S+)\s*$/i.exec(line);
    if (!d) break;
    if (d[1]!.toLowerCase() === 'escape' && (d[2] === '`' || d[2] === '\\')) escape = d[2];
  }
  const out: string[] = [];
  const heredocs: Array<{ word: string; stripTabs: boolean }> = [];
  let logical = '';
  for (const line of lines) {
    if (heredocs.length > 0) {
      const h = heredocs[0]!;
      if ((h.stripTabs ? line.replace(/^\t+/, '') : line) === h.word) heredocs.shift();
      continue;
    }
    if (/^\s*#/.test(line)) continue;
    const trimmed = line.replace(/\s+$/, '');
    if (trimmed.endsWith(escape)) {
      logical += `${trimmed.slice(0, -1)} `;
      continue;
    }
    logical += line;
    if (logical.trim()) {
      out.push(logical.trim());
      heredocs.push(...heredocsOf(logical.trim()));
    }
    logical = '';
  }
  if (logical.trim()) out.push(logical.trim());
  return out;
}

/**
 * The images a Dockerfile's `FROM` lines name, in order, without `scratch`, earlier stages
 * (`FROM base AS build` … `FROM build`) and references made of build arguments (`FROM $BASE`,
 * which only the engine can resolve).
 */
export function dockerfileBases(dockerfile: string): string[] {
  const stages = new Set<string>();
  const bases: string[] = [];
  for (const instruction of dockerfileInstructions(dockerfile)) {
    const m = /^FROM\s+(.+)$/i.exec(instruction);
    if (!m) continue;
    const words = m[1]!.trim().split(/\s+/).filter((w) => !w.startsWith('--'));
    const ref = words[0];
    if (!ref) continue;
    const asIdx = words.findIndex((w) => w.toLowerCase() === 'as');
    const stage = asIdx > 0 ? words[asIdx + 1] : undefined;
    if (ref.toLowerCase() !== 'scratch' && !ref.includes('$') && !stages.has(ref.toLowerCase()) && !bases.includes(ref)) bases.push(ref);
    if (stage) stages.add(stage.toLowerCase());
  }
  return bases;
}

/**
 * An image reference (`name[:tag][@digest]`, or an id) fit to be put in an engine's URL path:
 * dockerode does not encode it, and over tcp:// the client resolves `..` before sending, so
 * `x/../../containers/<id>` would reach another endpoint (an image removal would remove a
 * container). Docker's own grammar never has `..`, a query or a fragment in a reference.
 */
export function requireImageRef(ref: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/.test(ref) || /(^|\/)\.\.?(\/|$)|\/\//.test(ref)) {
    throw new AppError('invalid_input', `${JSON.stringify(ref)} is not an image reference (name[:tag][@digest] or an image id).`, { reason: 'bad_image_ref' });
  }
}

/** The container an engine names when it refuses to remove an image one uses (Docker and Podman word it alike). */
export function containerInRefusal(engineMessage: string): string | null {
  return /container ([0-9a-f]{12,64})\b/i.exec(engineMessage)?.[1] ?? null;
}

export interface ImageUser {
  id: string;
  /** Without Docker's leading slash. */
  name: string;
  running: boolean;
  /** The Flightdeck session the container belongs to, when it is one of the app's. */
  sessionId: string | null;
}

/** The engine refused to remove `ref` because `user` (a container) uses it. */
export function imageInUse(ref: string, engine: string, user: ImageUser, engineMessage: string): AppError {
  const what = `the ${user.running ? 'running' : 'stopped'} container ${user.name}${user.sessionId ? ` (session ${user.sessionId})` : ''}`;
  const fix = user.sessionId ? 'remove that container first (Containers view)' : `remove that container first (docker rm${user.running ? ' -f' : ''} ${user.name})`;
  return new AppError('conflict', `The image ${ref} is in use by ${what} on ${engine}: ${fix}, then retry.`, {
    reason: 'image_in_use',
    engine,
    container: user,
    engineMessage,
  });
}

/** The engine refused to remove an image by id because several tags name it. */
export function imageHasTags(ref: string, engine: string, engineMessage: string): AppError {
  return new AppError('conflict', `The image ${ref} on ${engine} has several tags: remove them one at a time (the image goes with its last tag).`, {
    reason: 'image_tagged',
    engine,
    engineMessage,
  });
}

/** A base image the build needs is not on the engine: say which, and how to get it, rather than letting the engine pull it. */
export function baseImageMissing(bases: string[], engine: string): AppError {
  const list = bases.join(', ');
  return new AppError('not_found', `The base image ${list} is not on ${engine}. Flightdeck never pulls images by itself: pull it there first (${bases.map((b) => `docker pull ${b}`).join('; ')}), or build again allowing the pull (Pull the base and build; \`containers image-build --pull\`).`, {
    reason: 'base_image_missing',
    engine,
    images: bases,
  });
}

/**
 * The engine's image build stream (JSON lines: `stream`, `status`/`progress`, `aux`, `error`)
 * as progress a person can follow: the current step of the Dockerfile, the fraction done, the
 * log line, the image id at the end, or the build's error. Pure.
 */

export interface BuildProgress {
  /** 1-based step being run, and how many there are (0 until the first "Step" line). */
  step: number;
  steps: number;
  /** 0..1 (steps done / steps). */
  fraction: number;
  /** The last log line (without the trailing newline), for the progress bar's caption. */
  line: string;
  imageId: string | null;
  error: string | null;
}

export function emptyProgress(): BuildProgress {
  return { step: 0, steps: 0, fraction: 0, line: '', imageId: null, error: null };
}

const STEP = /^Step (\d+)\/(\d+) :/;

/** The progress after one message of the build stream; messages of unknown shape change nothing. */
export function applyBuildMessage(p: BuildProgress, msg: unknown): BuildProgress {
  if (!msg || typeof msg !== 'object') return p;
  const m = msg as { stream?: unknown; status?: unknown; progress?: unknown; error?: unknown; errorDetail?: { message?: unknown }; aux?: { ID?: unknown } };
  if (typeof m.error === 'string' || typeof m.errorDetail?.message === 'string') {
    return { ...p, error: typeof m.errorDetail?.message === 'string' ? m.errorDetail.message : String(m.error) };
  }
  if (m.aux && typeof m.aux.ID === 'string') return { ...p, imageId: m.aux.ID };
  const text = typeof m.stream === 'string' ? m.stream : typeof m.status === 'string' ? `${m.status}${typeof m.progress === 'string' ? ` ${m.progress}` : ''}` : null;
  if (text === null) return p;
  const line = text.replace(/\s+$/, '');
  if (line === '') return p;
  const s = STEP.exec(line);
  if (s) {
    const step = Number(s[1]);
    const steps = Number(s[2]);
    return { ...p, step, steps, fraction: steps > 0 ? (step - 1) / steps : 0, line };
  }
  return { ...p, line };
}

/** Splits a chunked JSON-lines stream into messages; a partial last line waits for the next chunk. */
export class JsonLines {
  private rest = '';
  push(chunk: string): unknown[] {
    const text = this.rest + chunk;
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    const out: unknown[] = [];
    for (const l of lines) {
      if (l.trim() === '') continue;
      try {
        out.push(JSON.parse(l));
      } catch {
        // A line the engine garbled is shown as text rather than stopping the build's progress.
        out.push({ stream: l });
      }
    }
    return out;
  }
}

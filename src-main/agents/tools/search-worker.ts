import { Worker } from 'node:worker_threads';

/**
 * glob and grep walk the tree (and grep runs the model's regular expression) in a worker
 * thread: a pattern that backtracks catastrophically, or a huge tree, must not freeze the main
 * process (the UI, every session, terminal flow control). The worker is terminated at the
 * deadline or on cancel.
 */
export interface SearchJob {
  /** grep: matching lines of files; glob: the paths themselves. */
  mode: 'grep' | 'glob';
  realRoot: string;
  baseRel: string;
  baseIsDir: boolean;
  pattern: string;
  flags: string;
  /** The glob filter as a regular expression (picomatch.makeRe), or null. */
  glob: { source: string; flags: string } | null;
  /** glob mode: the filter is matched against paths relative to this folder. */
  globFrom?: string;
  maxMatches: number;
  maxFiles: number;
  maxFileBytes: number;
  skippedDirs: string[];
}

export interface GrepOutcome {
  lines: string[];
  more: boolean;
  filesSearched: number;
}

// Plain JavaScript, evaluated in the worker: it must not depend on the TypeScript build.
const WORKER_SOURCE = String.raw`
const { parentPort, workerData: job } = require('node:worker_threads');
const { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } = require('node:fs');
// A FIFO opens at once instead of waiting for a writer; a symlink put in a file's place is not followed.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK || 0) | (constants.O_NOFOLLOW || 0);
// Only a regular file, checked on the opened descriptor (it may have been swapped since the walk
// saw it): a FIFO, socket or device could block this thread for good, and a thread blocked in a
// system call cannot be terminated.
function readRegular(abs, maxBytes) {
  if (!lstatSync(abs).isFile()) return null;
  const fd = openSync(abs, OPEN_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    closeSync(fd);
  }
}
const { join } = require('node:path');
const re = job.mode === 'grep' ? new RegExp(job.pattern, job.flags) : null;
const only = job.glob ? new RegExp(job.glob.source, job.glob.flags) : null;
const skipped = new Set(job.skippedDirs);
function* walk(dir) {
  const stack = [dir];
  let seen = 0;
  while (stack.length > 0) {
    const rel = stack.pop();
    let entries;
    try { entries = readdirSync(join(job.realRoot, rel), { withFileTypes: true }); } catch { continue; }
    entries.sort((a, b) => (a.name < b.name ? 1 : -1));
    for (const e of entries) {
      const path = rel === '.' ? e.name : rel + '/' + e.name;
      if (e.isDirectory()) { if (!skipped.has(e.name)) stack.push(path); }
      else if (e.isFile()) { if (++seen > job.maxFiles) return; yield path; }
    }
  }
}
const lines = [];
let more = false;
let files = 0;
const paths = job.baseIsDir ? walk(job.baseRel) : [job.baseRel];
outer: for (const path of paths) {
  if (job.mode === 'glob') {
    const from = job.globFrom && job.globFrom !== '.' ? path.slice(job.globFrom.length + 1) : path;
    if (only && !only.test(from)) continue;
    if (lines.length >= job.maxMatches) { more = true; break; }
    lines.push(path);
    continue;
  }
  if (only && !only.test(path)) continue;
  let buf;
  try {
    buf = readRegular(join(job.realRoot, path), job.maxFileBytes);
  } catch { continue; }
  if (buf === null) continue;
  if (buf.subarray(0, 8000).includes(0)) continue;
  files++;
  const text = buf.toString('utf8').split('\n');
  for (let i = 0; i < text.length; i++) {
    if (!re.test(text[i])) continue;
    if (lines.length >= job.maxMatches) { more = true; break outer; }
    const line = text[i].length > 300 ? text[i].slice(0, 300) + '…' : text[i];
    lines.push(path + ':' + (i + 1) + ': ' + line);
  }
}
parentPort.postMessage({ lines, more, filesSearched: files });
`;

export class SearchTimeoutError extends Error {
  override readonly name = 'SearchTimeoutError';
}

export function runSearchJob(job: SearchJob, opts: { signal: AbortSignal; timeoutMs: number }): Promise<GrepOutcome> {
  return new Promise((resolve, reject) => {
    if (opts.signal.aborted) return reject(new SearchTimeoutError('cancelled'));
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: job });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      fn();
      // Terminating an idle or finished worker is harmless; a busy one is what this is for.
      void worker.terminate();
    };
    const timer = setTimeout(() => finish(() => reject(new SearchTimeoutError(`the search ran past ${Math.round(opts.timeoutMs / 1000)} s`))), opts.timeoutMs);
    const onAbort = () => finish(() => reject(new SearchTimeoutError('cancelled')));
    opts.signal.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: GrepOutcome) => finish(() => resolve(m)));
    worker.once('error', (e) => finish(() => reject(e)));
    worker.once('exit', (code) => finish(() => reject(new Error(`the search stopped unexpectedly (exit ${code})`))));
  });
}

/**
 * A multi-file unified diff (`git diff`, plus the patches Flightdeck builds for untracked
 * files) split into files and hunks with line numbers, for drawing. Pure; unit-tested.
 * Lenient by design: a line it does not understand is skipped, never thrown on.
 */
export interface DiffLine {
  kind: 'context' | 'add' | 'del' | 'meta';
  text: string;
  oldNo: number | null;
  newNo: number | null;
}

export interface DiffHunk {
  header: string;
  lines: DiffLine[];
}

export interface DiffFile {
  path: string;
  hunks: DiffHunk[];
  added: number;
  removed: number;
  binary: boolean;
  /** Why there are no hunks to show (binary, too large). */
  note: string | null;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;
const strip = (p: string) => p.replace(/^[ab]\//, '').replace(/\t.*$/, '');

export function parseUnifiedDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  /** After `diff --git`, before its first hunk: the `---`/`+++` lines belong to that file. */
  let inHeader = false;
  const start = (path: string): DiffFile => {
    file = { path, hunks: [], added: 0, removed: 0, binary: false, note: null };
    hunk = null;
    inHeader = false;
    files.push(file);
    return file;
  };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const git = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
    if (git) {
      start(git[2]!);
      inHeader = true;
      continue;
    }
    const untracked = /^new (binary )?file (.+?)(?: \((\d+) bytes, not shown\))?$/.exec(line);
    if (untracked && !inHeader) {
      const f = start(untracked[2]!);
      f.binary = true;
      f.note = untracked[1] ? 'Binary file (new)' : `New file, ${untracked[3] ?? '?'} bytes: too large to show`;
      continue;
    }
    if (line.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ')) {
      const from = line.slice(4);
      const to = lines[i + 1]!.slice(4);
      const path = strip(to === '/dev/null' ? from : to);
      if (inHeader && file) (file as DiffFile).path = path;
      else start(path);
      inHeader = false;
      i++;
      continue;
    }
    if (/^Binary files .* differ$/.test(line)) {
      const cur = (file as DiffFile | null) ?? start('binary');
      cur.binary = true;
      cur.note = 'Binary file changed';
      inHeader = false;
      continue;
    }
    const h = HUNK.exec(line);
    if (h && file) {
      oldNo = Number(h[1]);
      newNo = Number(h[2]);
      hunk = { header: line, lines: [] };
      inHeader = false;
      (file as DiffFile).hunks.push(hunk);
      continue;
    }
    if (!hunk || !file) continue;
    const f = file as DiffFile;
    const hk = hunk as DiffHunk;
    if (line.startsWith('+')) {
      hk.lines.push({ kind: 'add', text: line.slice(1), oldNo: null, newNo: newNo++ });
      f.added++;
    } else if (line.startsWith('-')) {
      hk.lines.push({ kind: 'del', text: line.slice(1), oldNo: oldNo++, newNo: null });
      f.removed++;
    } else if (line.startsWith(' ')) {
      hk.lines.push({ kind: 'context', text: line.slice(1), oldNo: oldNo++, newNo: newNo++ });
    } else if (line.startsWith('\\')) {
      hk.lines.push({ kind: 'meta', text: line.slice(2), oldNo: null, newNo: null });
    } else if (line.startsWith('… [diff cut')) {
      hk.lines.push({ kind: 'meta', text: line, oldNo: null, newNo: null });
    }
  }
  return files;
}

/** Whether a diff changes nothing (a write of the content already there): no added or removed line, no binary file. */
export function diffChangesNothing(text: string): boolean {
  // A new file, even an empty one, is a change.
  if (/^--- \/dev\/null/m.test(text) || /^\+\+\+ \/dev\/null/m.test(text)) return false;
  return parseUnifiedDiff(text).every((f) => f.added === 0 && f.removed === 0 && !f.binary);
}

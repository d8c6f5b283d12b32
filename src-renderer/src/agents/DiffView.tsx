import { createTwoFilesPatch } from 'diff';
import { useState } from 'react';
import { parseUnifiedDiff, type DiffFile } from './diff-parse';

function lineClass(line: string): string {
  return line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : line.startsWith('\\') ? 'diff-meta' : '';
}

/** A unified diff with added, removed and hunk lines coloured (one file, as approvals show it). */
export function DiffView({ diff, testId }: { diff: string; testId?: string }) {
  // The patch library's "Index:" and "====" preamble says nothing the file lines do not.
  const lines = diff.split('\n').filter((l) => !/^(Index: |={10,})/.test(l));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return (
    <pre className="diff" data-testid={testId}>
      {lines.map((line, i) => {
        const cls = line.startsWith('+++') || line.startsWith('---') ? 'diff-file' : line.startsWith('@@') ? 'diff-hunk' : lineClass(line);
        return (
          <span key={i} className={cls}>
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

/** The diff a `patch` call's input describes: its own unified diff, or one built from its search/replace edits. */
export function patchInputDiff(input: Record<string, unknown> | null): string | null {
  if (!input) return null;
  const path = typeof input.path === 'string' ? input.path : 'file';
  if (typeof input.diff === 'string' && input.diff.trim()) return input.diff;
  if (!Array.isArray(input.edits)) return null;
  const parts: string[] = [];
  for (const e of input.edits as unknown[]) {
    if (!e || typeof e !== 'object') continue;
    const { search, replace } = e as { search?: unknown; replace?: unknown };
    if (typeof search !== 'string' || typeof replace !== 'string') continue;
    const withNl = (s: string) => (s.endsWith('\n') ? s : s + '\n');
    parts.push(createTwoFilesPatch(`a/${path}`, `b/${path}`, withNl(search), withNl(replace), undefined, undefined, { context: 3 }));
  }
  return parts.length ? parts.join('') : null;
}

const STATUS_WORD: Record<string, string> = { M: 'modified', A: 'added', D: 'deleted', R: 'renamed', C: 'copied', U: 'conflict', '?': 'untracked' };

function FileDiff({ file }: { file: DiffFile }) {
  const [open, setOpen] = useState(true);
  return (
    <section className="diff-file-block" data-testid="diff-file">
      <button className="diff-file-head" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        <span className="mono truncate">{file.path}</span>
        <span className="spacer" />
        <span className="diff-count add">+{file.added}</span>
        <span className="diff-count del">−{file.removed}</span>
      </button>
      {open &&
        (file.binary ? (
          <p className="muted small diff-note">{file.note ?? 'Binary file'}</p>
        ) : (
          <div className="diff-hunks">
            {file.hunks.map((h, i) => (
              <div className="diff-hunk-block" key={i} data-testid="diff-hunk">
                <div className="diff-hunk mono">{h.header}</div>
                <table className="diff-table mono">
                  <tbody>
                    {h.lines.map((l, j) => (
                      <tr key={j} className={l.kind === 'add' ? 'diff-add' : l.kind === 'del' ? 'diff-del' : l.kind === 'meta' ? 'diff-meta' : ''}>
                        <td className="diff-ln">{l.oldNo ?? ''}</td>
                        <td className="diff-ln">{l.newNo ?? ''}</td>
                        <td className="diff-sign">{l.kind === 'add' ? '+' : l.kind === 'del' ? '−' : ''}</td>
                        <td className="diff-code">{l.text}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ))}
          </div>
        ))}
    </section>
  );
}

/** A file's status letter from `git status --short`: its own line, or its untracked folder's (`?? notes/`). */
function covers(line: string, path: string): boolean {
  const p = line.slice(3);
  const target = p.includes(' -> ') ? p.split(' -> ')[1]! : p;
  return target === path || (target.endsWith('/') && path.startsWith(target));
}

export function statusFor(path: string, statusLines: readonly string[]): string {
  const l = statusLines.find((x) => covers(x, path));
  return l ? (l.slice(0, 2).trim()[0] ?? 'M') : 'M';
}

/**
 * `/diff`'s output: the changed files with their status and counts, then each file's hunks
 * with line numbers, additions and removals coloured.
 */
export function ChangesView({ status, diff }: { status: string; diff: string }) {
  const files = parseUnifiedDiff(diff);
  const statusLines = status.split('\n').filter((l) => l.trim() !== '');
  // Status entries the diff has no file for (e.g. an empty untracked folder) are still listed.
  const extra = statusLines.filter((l) => !files.some((f) => covers(l, f.path)));
  return (
    <div className="changes" data-testid="changes-view">
      <ul className="changes-files" data-testid="changes-files">
        {files.map((f) => {
          const key = statusFor(f.path, statusLines);
          return (
            <li key={f.path}>
              <span className={`badge changes-status st-${key === '?' ? 'new' : key}`}>{STATUS_WORD[key] ?? key}</span>
              <span className="mono truncate">{f.path}</span>
              <span className="small changes-counts">
                <span className="diff-count add">+{f.added}</span> <span className="diff-count del">−{f.removed}</span>
              </span>
            </li>
          );
        })}
        {extra.map((l) => (
          <li key={l}>
            <span className="badge changes-status">{STATUS_WORD[l.slice(0, 2).trim()[0] ?? ''] ?? l.slice(0, 2)}</span>
            <span className="mono truncate">{l.slice(3)}</span>
          </li>
        ))}
      </ul>
      {files.map((f) => (
        <FileDiff key={f.path} file={f} />
      ))}
    </div>
  );
}

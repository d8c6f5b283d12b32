/** A unified diff with added, removed and hunk lines coloured. */
export function DiffView({ diff, testId }: { diff: string; testId?: string }) {
  // The patch library's "Index:" and "====" preamble says nothing the file lines do not.
  const lines = diff.split('\n').filter((l) => !/^(Index: |={10,})/.test(l));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return (
    <pre className="diff" data-testid={testId}>
      {lines.map((line, i) => {
        const cls = line.startsWith('+++') || line.startsWith('---') ? 'diff-file' : line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : '';
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

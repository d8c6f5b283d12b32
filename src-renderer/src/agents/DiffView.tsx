/** A unified diff with added, removed and hunk lines coloured. */
export function DiffView({ diff, testId }: { diff: string; testId?: string }) {
  const lines = diff.split('\n');
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

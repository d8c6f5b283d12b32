import type { TranscriptItem } from './transcript';

/**
 * The words of a transcript block as the find bar searches them: what the block shows (the
 * message, the tool's input and output, a command's text), without markup. A long transcript is
 * virtualized, so the browser's own find cannot see the blocks off screen; this can.
 */
export function itemText(item: TranscriptItem): string {
  switch (item.kind) {
    case 'user':
    case 'assistant':
    case 'thinking':
    case 'notice':
      return item.text;
    case 'tool':
      return [item.tool, item.inputJson, item.output, item.result?.content ?? '', item.result?.stdout ?? '', item.result?.stderr ?? ''].join('\n');
    case 'command':
      return [item.name, item.text, ...(item.view?.type === 'diff' ? [item.view.diff] : item.view ? item.view.rows.flatMap((r) => r.cells) : [])].join('\n');
    case 'compaction':
      return `${item.text}\n${item.summary ?? ''}`;
    case 'verify':
      return `${item.command}\n${item.output}`;
    case 'error':
      return item.message;
    case 'turn-end':
      return item.message ?? '';
    case 'rewound':
      return item.items.map(itemText).join('\n');
  }
}

/** The indexes of the blocks containing `query` (case-insensitive), in order; none for an empty query. */
export function findMatches(items: readonly TranscriptItem[], query: string): number[] {
  const q = query.trim().toLocaleLowerCase();
  if (!q) return [];
  const out: number[] = [];
  items.forEach((it, i) => {
    if (itemText(it).toLocaleLowerCase().includes(q)) out.push(i);
  });
  return out;
}

import { useMemo, useState } from 'react';
import { Icon } from '../components/Icon';
import type { TranscriptItem } from './transcript';
import { findMatches } from './transcript-find';

export interface TranscriptFind {
  open: boolean;
  query: string;
  /** Indexes of the matching blocks, and which of them is current. */
  matches: number[];
  at: number;
  show(): void;
  hide(): void;
  setQuery(q: string): void;
  step(forward: boolean): void;
}

/** Find in a (virtualized) transcript: matches are blocks, and going to one scrolls it into view. */
export function useTranscriptFind(items: readonly TranscriptItem[], reveal: (index: number) => void): TranscriptFind {
  const [open, setOpen] = useState(false);
  const [query, setQueryState] = useState('');
  const [at, setAt] = useState(0);
  const matches = useMemo(() => (open ? findMatches(items, query) : []), [open, items, query]);
  const go = (list: number[], i: number) => {
    setAt(i);
    if (list.length > 0) reveal(list[i]!);
  };
  return {
    open,
    query,
    matches,
    at: Math.min(at, Math.max(0, matches.length - 1)),
    show: () => setOpen(true),
    hide: () => setOpen(false),
    setQuery: (q) => {
      setQueryState(q);
      // The last match is the newest: the one nearest to where the user usually is.
      const list = findMatches(items, q);
      go(list, Math.max(0, list.length - 1));
    },
    step: (forward) => {
      if (matches.length === 0) return;
      const cur = Math.min(at, matches.length - 1);
      go(matches, (cur + (forward ? 1 : -1) + matches.length) % matches.length);
    },
  };
}

export function TranscriptFindBar({ find }: { find: TranscriptFind }) {
  const label = find.query.trim() === '' ? '' : find.matches.length === 0 ? 'No matches' : `${find.at + 1} of ${find.matches.length}`;
  return (
    <div className="transcript-find" role="search" data-testid="transcript-find">
      <input
        autoFocus
        className="input"
        placeholder="Find in conversation"
        aria-label="Find in conversation"
        value={find.query}
        onChange={(e) => find.setQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            find.step(e.shiftKey);
          }
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            find.hide();
          }
        }}
        data-testid="transcript-find-input"
      />
      <span className="muted small transcript-find-count" aria-live="polite" data-testid="transcript-find-count">
        {label}
      </span>
      <button className="icon-button" aria-label="Previous match" title="Previous (Enter)" onClick={() => find.step(false)}>
        <Icon name="chevronUp" />
      </button>
      <button className="icon-button" aria-label="Next match" title="Next (Shift+Enter)" onClick={() => find.step(true)}>
        <Icon name="chevronDown" />
      </button>
      <button className="icon-button" aria-label="Close find" onClick={() => find.hide()}>
        <Icon name="x" />
      </button>
    </div>
  );
}

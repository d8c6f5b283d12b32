import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Modal } from '../components/Modal';
import { KIND_LABEL, rankEntries, type PaletteEntry } from './palette-model';

/** Rows shown at once: the rest is reached by typing more, not by scrolling a long list. */
const MAX_ROWS = 50;

/**
 * A list picker over entries, driven from its text field: type to filter, ↑/↓ to choose,
 * Enter to run, Escape to close. The palette and "New session in…" both use it.
 */
export function CommandPalette({
  title,
  placeholder,
  entries,
  onPick,
  onClose,
  testId = 'command-palette',
}: {
  title: string;
  placeholder: string;
  entries: readonly PaletteEntry[];
  onPick(entry: PaletteEntry): void;
  onClose(): void;
  testId?: string;
}) {
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const shown = useMemo(() => rankEntries(entries, query, MAX_ROWS), [entries, query]);
  const sel = Math.min(selected, Math.max(0, shown.length - 1));

  const move = (to: number) => {
    const n = shown.length;
    if (n === 0) return;
    const next = (to + n) % n;
    setSelected(next);
    list.current?.children[next]?.scrollIntoView({ block: 'nearest' });
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || (e.key === 'n' && e.ctrlKey)) {
      e.preventDefault();
      move(sel + 1);
    } else if (e.key === 'ArrowUp' || (e.key === 'p' && e.ctrlKey)) {
      e.preventDefault();
      move(sel - 1);
    } else if (e.key === 'Enter' && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      const entry = shown[sel];
      if (entry) onPick(entry);
    }
  };
  const optionId = (i: number) => `${testId}-option-${i}`;

  return (
    <Modal title={title} onClose={onClose} className="palette-modal" testId={testId}>
      <input
        className="input palette-input"
        autoFocus
        data-autofocus
        value={query}
        placeholder={placeholder}
        onChange={(e) => {
          setQuery(e.target.value);
          setSelected(0);
        }}
        onKeyDown={onKey}
        role="combobox"
        aria-expanded="true"
        aria-controls={`${testId}-list`}
        aria-activedescendant={shown.length > 0 ? optionId(sel) : undefined}
        aria-label={placeholder}
        data-testid="palette-input"
      />
      <ul className="palette-list" role="listbox" id={`${testId}-list`} ref={list} aria-label={title}>
        {shown.map((e, i) => (
          <li
            key={e.id}
            id={optionId(i)}
            role="option"
            aria-selected={i === sel}
            className={`palette-option ${i === sel ? 'selected' : ''}`}
            onMouseMove={() => i !== sel && setSelected(i)}
            onMouseDown={(ev) => {
              ev.preventDefault();
              onPick(e);
            }}
            data-testid="palette-option"
            data-entry={e.id}
          >
            <span className={`palette-kind kind-${e.kind}`}>{KIND_LABEL[e.kind]}</span>
            <span className="palette-text">
              <span className="palette-label truncate">{e.label}</span>
              {e.detail && <span className="palette-detail muted small truncate">{e.detail}</span>}
            </span>
            {e.shortcut && <kbd className="palette-shortcut">{e.shortcut}</kbd>}
          </li>
        ))}
        {shown.length === 0 && (
          <li className="palette-empty muted" role="presentation">
            Nothing matches “{query}”.
          </li>
        )}
      </ul>
    </Modal>
  );
}

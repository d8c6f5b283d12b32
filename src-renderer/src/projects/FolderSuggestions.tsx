import { useEffect, useState, type KeyboardEvent } from 'react';
import type { FolderSuggestion } from '../../../src-preload/contract/folders';
import { useClient } from '../store';
import './projects.css';

/** Typing pauses this long before folders are listed, so each keystroke does not read the disk. */
const SUGGEST_DEBOUNCE_MS = 150;

/**
 * Folder completion under a path input (browser mode has no folder picker): the host lists the
 * subfolders under the user's home that match what was typed. ArrowUp/Down move, Enter or Tab
 * take the highlighted folder, Escape closes the list; a click takes one too.
 */
export function useFolderSuggestions(path: string, setPath: (p: string) => void) {
  const client = useClient();
  const [items, setItems] = useState<FolderSuggestion[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [active, setActive] = useState(-1);
  const [closed, setClosed] = useState(false);
  useEffect(() => {
    let stale = false;
    const t = setTimeout(() => {
      client.invoke('folders.suggest', { typed: path }).then(
        (r) => {
          if (stale) return;
          // The folder the user already typed in full is not a suggestion.
          setItems(r.suggestions.filter((s) => s.path !== path.replace(/\/+$/, '')));
          setTruncated(r.truncated);
          setActive(-1);
          // A new path reopens a list closed with Escape.
          setClosed(false);
        },
        () => {
          // Suggestions are a convenience: when listing fails the field works as before.
          if (!stale) setItems([]);
        },
      );
    }, SUGGEST_DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [client, path]);
  const open = !closed && items.length > 0;
  const take = (s: FolderSuggestion) => {
    // The trailing slash lists the chosen folder's own subfolders next.
    setPath(s.path + '/');
    setClosed(false);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (!open) {
      if (e.key === 'ArrowDown' && items.length > 0) {
        setClosed(false);
        setActive(0);
        e.preventDefault();
      }
      return;
    }
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = items.length;
      setActive((a) => (e.key === 'ArrowDown' ? (a + 1) % n : (a - 1 + n) % n));
    } else if ((e.key === 'Enter' || e.key === 'Tab') && active >= 0) {
      e.preventDefault();
      take(items[active]!);
    } else if (e.key === 'Tab' && items.length === 1) {
      e.preventDefault();
      take(items[0]!);
    } else if (e.key === 'Escape') {
      // Closes the list, not the dialog.
      e.stopPropagation();
      setClosed(true);
    }
  };
  const list = open ? (
    <ul className="folder-suggestions" role="listbox" id="folder-suggestions" aria-label="Matching folders" data-testid="folder-suggestions">
      {items.map((s, i) => (
        <li
          key={s.path}
          role="option"
          id={`folder-suggestion-${i}`}
          aria-selected={i === active}
          className={i === active ? 'active' : ''}
          // mousedown, not click: the input keeps focus, so typing continues after the pick.
          onMouseDown={(e) => {
            e.preventDefault();
            take(s);
          }}
          data-testid="folder-suggestion"
        >
          <span className="mono">{s.name}/</span>
          <span className="muted small truncate">{s.path}</span>
        </li>
      ))}
      {truncated && <li className="muted small folder-suggestions-more">More folders match: keep typing to narrow them.</li>}
    </ul>
  ) : null;
  const inputProps = {
    role: 'combobox',
    'aria-expanded': open,
    'aria-controls': 'folder-suggestions',
    'aria-autocomplete': 'list' as const,
    ...(open && active >= 0 ? { 'aria-activedescendant': `folder-suggestion-${active}` } : {}),
    onKeyDown,
  };
  return { list, inputProps };
}

import { useEffect, useRef, useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import { useAppStore } from '../store';
import './sessions.css';

/** Longest title the contract accepts (agents.sessions.update). */
const MAX_TITLE_LENGTH = 200;

/** Copies text; falls back to a hidden textarea where the async clipboard API is missing (plain http on a LAN address). */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Permission refused or not a secure context: the textarea fallback below still works there.
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('The browser did not allow copying.');
}

function ArchiveIcon() {
  return (
    <svg width="15" height="15" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d="M3 4h18v4H3zM5 8v11a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1V8M10 12h4" />
    </svg>
  );
}

/**
 * The session's name in its header: click to rename (Enter saves, Escape cancels), its id
 * shown and copied with one click, and archive / unarchive.
 */
export function SessionIdentity({ session }: { session: Session }) {
  const update = useAppStore((s) => s.updateSession);
  const toast = useAppStore((s) => s.toast);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(session.title);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);
  const save = () => {
    const title = draft.trim();
    setEditing(false);
    if (title && title !== session.title) void update(session.id, { title: title.slice(0, MAX_TITLE_LENGTH) });
  };
  const copy = () =>
    copyText(session.id).then(
      () => toast({ level: 'success', title: 'Session id copied', message: session.id }),
      (e: unknown) => toast({ level: 'error', title: 'Could not copy the session id', message: e instanceof Error ? e.message : String(e) }),
    );
  return (
    <>
      {editing ? (
        <input
          ref={input}
          className="input session-rename"
          aria-label="Session name"
          value={draft}
          maxLength={MAX_TITLE_LENGTH}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={save}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              save();
            } else if (e.key === 'Escape') {
              e.stopPropagation();
              setEditing(false);
            }
          }}
          data-testid="session-rename-input"
        />
      ) : (
        <h1 className="truncate session-name" title={`${session.title} — click to rename`}>
          <button
            className="session-name-button"
            onClick={() => {
              setDraft(session.title);
              setEditing(true);
            }}
            data-testid="session-rename"
          >
            {session.title}
          </button>
        </h1>
      )}
      <button className="session-id mono small" onClick={() => void copy()} title={`${session.id}: click to copy (for the CLI: flightdeck chat --session …)`} data-testid="session-id">
        {session.id}
      </button>
      {session.archived && <span className="badge" data-testid="session-archived">Archived</span>}
      <button
        className="icon-button"
        onClick={() => void update(session.id, { archived: !session.archived })}
        title={session.archived ? 'Unarchive: show it in the session lists again' : 'Archive: hide it from the session lists (it stays under Archived)'}
        aria-label={session.archived ? 'Unarchive session' : 'Archive session'}
        data-testid="session-archive"
      >
        <ArchiveIcon />
      </button>
    </>
  );
}

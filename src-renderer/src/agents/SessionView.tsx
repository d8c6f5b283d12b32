import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ImageAttachment, Session } from '../../../src-preload/contract/agents';
import { useAppStore, useClient } from '../store';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { plural, shortPath } from '../lib/format';
import { Missing } from '../components/Missing';
import { Icon } from '../components/Icon';
import { Composer, dialogOpen } from './Composer';
import { COMPACT_HINT_SHARE, historyEntries } from './composer-logic';
import { EffectiveConfig } from './EffectiveConfig';
import { SessionRules } from './SessionRules';
import { MODES, SessionHeader } from './SessionHeader';
import { TranscriptItemView, type TurnMenu } from './Transcript';
import { editedPaths, isChatTurn, type TranscriptItem } from './transcript';
import { useSessionStream } from './use-session-stream';
import { TranscriptFindBar, useTranscriptFind } from './TranscriptFindBar';
import { VIRTUALIZE_FROM_BLOCKS, VirtualTranscript, type TranscriptAnchor, type VirtualTranscriptHandle } from './VirtualTranscript';
import './agents.css';

/** What the empty session says its mode means, so a session started by /new in auto-edit does not claim Default. */
/** Within this many pixels of the bottom the transcript follows new output (a wheel notch away still counts as there). */
const STICK_PX = 40;

const MODE_HINT: Record<Session['mode'], string> = {
  plan: 'it explores and proposes; nothing is written and no command with side effects runs.',
  default: 'writes and risky commands ask you first. Switch to Plan to only explore and propose.',
  'auto-edit': 'it reads and writes files without asking and verifies its changes; other commands ask first.',
  yolo: 'files and commands run without asking (the hard floor still refuses catastrophic commands).',
};

export function SessionView({
  sessionId,
  onSend,
}: {
  sessionId: string;
  /** Takes the composer's input instead of sending it to the session (a plan's chat handles `/approve` itself). */
  onSend?: (text: string, images: readonly ImageAttachment[]) => Promise<boolean>;
}) {
  const session = useAppStore((s) => s.sessions.find((x) => x.id === sessionId));
  const project = useAppStore((s) => (session?.projectId ? s.projects.find((p) => p.id === session.projectId) : undefined));
  const sendInput = useAppStore((s) => s.sendInput);
  const cancelTurn = useAppStore((s) => s.cancelTurn);
  const setView = useAppStore((s) => s.setView);
  const sessionsLoaded = useAppStore((s) => s.sessionsLoaded);
  const { transcript, loading, readFailed, retry } = useSessionStream(sessionId, (to) => setView({ name: 'session', sessionId: to }));
  // A view that showed a long session's newest turns first stays virtualized when the rest is
  // in (even if it came to fewer blocks than that takes): switching would lose the place.
  const [virtualFor, setVirtualFor] = useState<string | null>(null);
  useEffect(() => {
    if (transcript.partial) setVirtualFor(sessionId);
  }, [transcript.partial, sessionId]);
  const scroller = useRef<HTMLDivElement>(null);
  // The virtualized transcript lays out rows in its scroller, so it is rendered once the scroller
  // is in the page: a transcript shown from the cache mounts with this view, before React has
  // attached the ref, and would lay out nothing. The state update comes in the same commit,
  // before anything is drawn.
  const [scrollerEl, setScrollerEl] = useState<HTMLDivElement | null>(null);
  const scrollerRef = useCallback((el: HTMLDivElement | null) => {
    scroller.current = el;
    setScrollerEl(el);
  }, []);
  const stick = useRef(true);
  const profiles = useAppStore((s) => s.profiles);
  const history = useMemo(() => historyEntries(transcript.items.flatMap((it) => (it.kind === 'user' ? [it.text] : []))), [transcript.items]);
  const client = useClient();
  const upsertSession = useAppStore((s) => s.upsertSession);
  /** The turn menu's pending choice, confirmed in a dialog that names what will change. */
  const [confirmTurn, setConfirmTurn] = useState<{ action: 'rewind' | 'fork'; turn: number } | null>(null);
  const [turnError, setTurnError] = useState<string | null>(null);
  /** Each chat turn's number and the items after it (what a rewind to it sets aside). */
  const turns = useMemo(() => {
    const starts: number[] = [];
    transcript.items.forEach((it, i) => {
      if (isChatTurn(it)) starts.push(i);
    });
    return starts;
  }, [transcript.items]);
  // The newest turns of a long session, shown before the rest is read: that session will be virtualized.
  const virtualized = transcript.partial === true || virtualFor === sessionId || transcript.items.length >= VIRTUALIZE_FROM_BLOCKS;
  const virtualRef = useRef<VirtualTranscriptHandle>(null);
  const find = useTranscriptFind(transcript.items, (index) => {
    // Reading a match is leaving the bottom: the stream no longer pulls the view down.
    stick.current = false;
    virtualRef.current?.scrollToIndex(index);
  });
  const laterItems = (turn: number): TranscriptItem[] => (turn < turns.length ? transcript.items.slice(turns[turn]) : []);

  // Output that arrived while the user was scrolled up: a "Jump to latest" pill offers the way down.
  const [behind, setBehind] = useState(false);
  // Follow the stream while the user is at the bottom; leave them alone when they scroll up.
  // A reader who scrolled up in a long session's newest turns before the rest was read: the
  // earlier turns arrive above what they read, which stays where it was.
  const readingAt = useRef<TranscriptAnchor | null>(null);
  const wasPartial = useRef(false);
  useLayoutEffect(() => {
    const el = scroller.current;
    const completed = wasPartial.current && !transcript.partial;
    wasPartial.current = transcript.partial === true;
    if (!el) return;
    if (stick.current) el.scrollTop = el.scrollHeight;
    else if (completed) {
      if (readingAt.current) virtualRef.current?.restore(readingAt.current);
    } else if (el.scrollHeight - el.scrollTop - el.clientHeight >= STICK_PX) setBehind(true);
    readingAt.current = null;
  }, [transcript]);
  useEffect(() => {
    stick.current = true;
    setBehind(false);
  }, [sessionId]);
  /** To the newest message, following the stream again (after a send, or from the pill). */
  const jumpToLatest = () => {
    stick.current = true;
    setBehind(false);
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  };

  if (!session) return <Missing what="Session" loaded={sessionsLoaded} verb="deleted" />;
  /** Sends `/rewind N` and follows its answer at the bottom (the user was up at that turn's menu). */
  const rewindTo = (turn: number) => {
    jumpToLatest();
    void sendInput(session.id, `/rewind ${turn}`);
  };
  const running = session.status === 'running' || session.status === 'awaiting_approval' || transcript.running;
  const todos = transcript.todos.length > 0 ? transcript.todos : session.todos;
  // The window of the profile that made the latest call (the session's own profile before any call).
  const ctxWindow = profiles.find((p) => p.name === (transcript.context?.profile ?? session.profile))?.contextWindow ?? null;
  const renderItem = (item: TranscriptItem, i: number) => {
    const n = isChatTurn(item) ? turns.indexOf(i) + 1 : 0;
    // Rewind: the user's own sessions; fork: any session (feature and mailbox ones too), on either executor.
    // Not before the whole conversation is read: a turn's number counts the turns before it.
    const menu: TurnMenu | null =
      n > 0 && !onSend && !transcript.partial
        ? {
            turn: n,
            onRewind: session.role || n === turns.length ? null : () => setConfirmTurn({ action: 'rewind', turn: n }),
            onFork: () => setConfirmTurn({ action: 'fork', turn: n }),
          }
        : null;
    return <TranscriptItemView key={item.kind + item.id} item={item} running={running} menu={menu} />;
  };

  return (
    <section
      className="session-view"
      data-testid="session-view"
      onKeyDown={(e) => {
        // A virtualized transcript is mostly outside the page, where the browser's find cannot look.
        if (virtualized && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey && e.code === 'KeyF') {
          e.preventDefault();
          find.show();
        }
      }}
    >
      <SessionHeader session={session} />
      <div className="session-subheader muted small">
        {project ? (
          <button className="link" onClick={() => setView({ name: 'project', projectId: project.id })}>
            {project.name}
          </button>
        ) : null}
        <span className="mono" title={session.root}>
          {shortPath(session.root)}
        </span>
        <span title="Conversations with the agent; ! and / commands are not counted" data-testid="turn-count">{plural(session.turnCount, 'turn')}</span>
        {readFailed && transcript.items.length > 0 ? (
          // The newest turns alone, or a conversation shown from before that could not be brought up to date.
          <span className="read-failed" role="status" data-testid={transcript.partial ? 'transcript-earlier-failed' : 'transcript-newest-failed'}>
            {transcript.partial ? 'earlier turns could not be read' : 'the newest events could not be read'} ·{' '}
            <button className="link" onClick={retry}>
              Try again
            </button>
          </span>
        ) : transcript.partial ? (
          <span className="muted" role="status" data-testid="transcript-earlier-loading">
            loading earlier turns…
          </span>
        ) : null}
        <EffectiveConfig sessionId={session.id} model={session.model} />
        <SessionRules sessionId={session.id} pendingApprovals={session.pendingApprovals} />
        {transcript.context && ctxWindow ? <ContextMeter tokens={transcript.context.tokens} window={ctxWindow} /> : null}
      </div>
      <div className="session-body">
        {find.open && virtualized && <TranscriptFindBar find={find} />}
        <div
          className="transcript"
          ref={scrollerRef}
          tabIndex={-1}
          onKeyDown={(e) => {
            if (virtualized && e.target === e.currentTarget && (e.key === 'Home' || e.key === 'End') && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.altKey) {
              e.preventDefault();
              if (e.key === 'End') jumpToLatest();
              else stick.current = false;
              virtualRef.current?.toEdge(e.key === 'Home' ? 'start' : 'end');
            }
            if (e.key === 'Escape' && running && !dialogOpen()) {
              e.preventDefault();
              void cancelTurn(session.id);
            }
          }}
          onScroll={(e) => {
            const el = e.currentTarget;
            stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
            if (stick.current) setBehind(false);
            readingAt.current = transcript.partial && !stick.current ? (virtualRef.current?.anchor() ?? null) : null;
          }}
          data-testid="transcript"
        >
          {loading && <p className="muted center">Loading the conversation…</p>}

          {!loading && readFailed && transcript.items.length === 0 && (
            <div className="transcript-empty" data-testid="transcript-read-failed">
              <p>The conversation could not be read.</p>
              <button className="button" onClick={retry}>
                Try again
              </button>
            </div>
          )}
          {!loading && !readFailed && transcript.items.length === 0 && (
            <div className="transcript-empty">
              <h2>What should the agent do?</h2>
              <p className="muted" data-testid="empty-mode">
                It works in <span className="mono">{shortPath(session.root)}</span>, in <strong>{MODES.find((m) => m.value === session.mode)?.label ?? session.mode}</strong> mode:{' '}
                {MODE_HINT[session.mode]}
              </p>
              <p className="muted small">
                Type <code>!git status</code> to run a command yourself, or <code>/</code> for commands such as <code>/diff</code> and <code>/model</code>.
              </p>
            </div>
          )}
          {virtualized ? (
            scrollerEl && <VirtualTranscript items={transcript.items} scroller={scroller} follow={stick} highlight={find.open ? (find.matches[find.at] ?? null) : null} render={renderItem} handle={virtualRef} />
          ) : (
            transcript.items.map(renderItem)
          )}
          {running && transcript.retry === null && <div className="working-indicator" aria-live="polite">Working…</div>}
        </div>
        {behind && (
          <button className="button jump-latest" onClick={jumpToLatest} data-testid="jump-latest" title="New output below: scroll to the latest message">
            <Icon name="chevronDown" size={14} /> Jump to latest
          </button>
        )}
        {todos.length > 0 && (
          <aside className="todo-panel" data-testid="todo-panel">
            <h3>Plan</h3>
            <ul>
              {todos.map((t) => (
                <li key={t.id} className={`todo todo-${t.status}`}>
                  <span className="todo-mark">{t.status === 'done' ? '✓' : t.status === 'in_progress' ? '▸' : '○'}</span>
                  {t.text}
                </li>
              ))}
            </ul>
          </aside>
        )}
      </div>
      {turnError && (
        <div className="notice notice-error turn-error" role="alert" data-testid="turn-error">
          <Icon name="alert" size={14} /> <span>{turnError}</span>
          <button className="icon-button" aria-label="Dismiss" onClick={() => setTurnError(null)}>
            <Icon name="x" size={14} />
          </button>
        </div>
      )}
      {confirmTurn?.action === 'rewind' && (
        <RewindConfirm
          claudeCode={session.executor === 'claude-code'}
          root={session.root}
          turn={confirmTurn.turn}
          later={laterItems(confirmTurn.turn)}
          onCancel={() => setConfirmTurn(null)}
          onConfirm={() => {
            const turn = confirmTurn.turn;
            setConfirmTurn(null);
            rewindTo(turn);
          }}
        />
      )}
      {confirmTurn?.action === 'fork' && (
        <ConfirmDialog
          title={`Fork from turn ${confirmTurn.turn}?`}
          confirmLabel="Fork"
          onCancel={() => setConfirmTurn(null)}
          onConfirm={async () => {
            const turn = confirmTurn.turn;
            setConfirmTurn(null);
            try {
              const r = await client.invoke('sessionWorktrees.fork', { sessionId: session.id, turn });
              upsertSession(r.session, null);
              setView({ name: 'session', sessionId: r.session.id });
            } catch (e) {
              setTurnError(`Could not fork: ${e instanceof Error ? e.message : String(e)}`);
            }
          }}
        >
          <p data-testid="fork-summary">
            A new session starts in a new worktree, with the files as they were after turn {confirmTurn.turn} and the conversation up to it.
          </p>
          <p className="muted small">This session and its folder are not changed.</p>
        </ConfirmDialog>
      )}
      <Composer key={session.id} sessionId={session.id} cycleModes={!onSend} queues={!onSend} running={running} history={history} onSend={(text, images) => {
          // Sending is looking at the conversation again: the view goes to the newest message.
          jumpToLatest();
          return onSend ? onSend(text, images) : sendInput(session.id, text, images);
        }} onStop={() => void cancelTurn(session.id)} />
    </section>
  );
}

/** Tokens in the context of the latest model call against the model's window; past ~80 % it suggests /compact. */
function ContextMeter({ tokens, window }: { tokens: number; window: number }) {
  const share = Math.min(1, tokens / window);
  const pct = Math.round(share * 100);
  const high = share >= COMPACT_HINT_SHARE;
  const k = (n: number) => (n >= 1000 ? `${Math.round(n / 1000).toLocaleString('en-US')}k` : String(n));
  return (
    <span
      className={`context-meter${high ? ' high' : ''}`}
      title={`${tokens.toLocaleString('en-US')} of ${window.toLocaleString('en-US')} tokens of the model's context window`}
      data-testid="context-meter"
    >
      <span className="context-bar" aria-hidden>
        <span style={{ width: `${pct}%` }} />
      </span>
      context {k(tokens)} / {k(window)} ({pct}%){high ? ' — /compact to make room' : ''}
    </span>
  );
}

/** "Rewind to after turn N?": which later turns are set aside and which files go back. */
function RewindConfirm({ turn, later, claudeCode, root, onCancel, onConfirm }: { turn: number; later: readonly TranscriptItem[]; claudeCode: boolean; root: string; onCancel(): void; onConfirm(): void }) {
  const count = later.filter(isChatTurn).length;
  const files = editedPaths(later, claudeCode ? root : undefined);
  return (
    <ConfirmDialog title={`Rewind to after turn ${turn}?`} confirmLabel="Rewind" onCancel={onCancel} onConfirm={onConfirm}>
      <p data-testid="rewind-summary">
        The conversation of {count === 1 ? `turn ${turn + 1} is` : `turns ${turn + 1}–${turn + count} are`} set aside: the agent continues from turn {turn}.
      </p>
      {files.length > 0 ? (
        <>
          <p>The agent's changes to these files in those turns are taken out:</p>
          <ul className="mono small" data-testid="rewind-files">
            {files.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
          <p className="muted small">
            Files you changed since are left alone until you choose (keep yours, take turn {turn}'s, or merge).{' '}
            {claudeCode ? "Files Claude Code's commands changed are put back too, except files git ignores." : 'Changes made by shell commands stay.'}
          </p>
        </>
      ) : claudeCode ? (
        <p className="muted small" data-testid="rewind-files-cc">Whatever Claude Code changed in the working tree in those turns is put back (its edits and its commands'; files git ignores stay).</p>
      ) : (
        <p className="muted small">Those turns changed no files with write or patch (changes made by shell commands are not rewound).</p>
      )}
      <p className="muted small">Undo rewind takes it back until you send the next message.</p>
    </ConfirmDialog>
  );
}

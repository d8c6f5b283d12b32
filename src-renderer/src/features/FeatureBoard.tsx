import { memo, useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Icon } from '../components/Icon';
import { usd } from '../lib/format';
import { useAppStore, useClient } from '../store';
import { BOARD_COLUMNS, COLUMN_LABEL, autopilotCards, clampFocus, elapsed, groupCards, moveFocus, toBoardCards, type BoardCard, type BoardColumn, type BoardFilter, type BoardPos, type BoardSort } from './board-model';
import './board.css';
import { usePrBoard } from './pr-board';
import { trimSlash } from '../lib/paths';
import { usePageVisible } from '../lib/use-page-visible';

/** A card's height plus the gap under it (CSS .feature-card and .board-list): fixed, so nothing needs measuring. */
const CARD_STRIDE = 130;
/** The list's padding (CSS .board-list), top and bottom. */
const LIST_PADDING = 16;
/** Cards rendered beyond the visible ones, so a quick scroll or arrow key never shows a blank. */
const OVERSCAN = 6;
/** Frames to wait for a card scrolled into view to be rendered before giving up on focusing it. */
const FOCUS_FRAMES = 6;

const STATUS_TEXT: Record<BoardCard['status'], string> = {
  planned: 'Not started',
  in_progress: 'In progress',
  completed: 'Completed',
  failed: 'Failed',
  merged: 'Merged',
};

const NOTHING_PENDING: ReadonlyMap<string, number> = new Map();

/**
 * Every feature of every project as a kanban: planned, in progress, needs input, completed,
 * failed, merged. Filtered by project and text; arrows move between cards, Enter opens one.
 * Columns are virtualized (only the cards in view are in the page), so a thousand features
 * cost what twenty do.
 */
export function FeatureBoard({ onOpen }: { onOpen(card: BoardCard): void }) {
  const featureProjects = useAppStore((s) => s.featureProjects);
  const loaded = useAppStore((s) => s.featuresLoaded);
  const error = useAppStore((s) => s.featuresError);
  const runs = useAppStore((s) => s.featureRuns);
  const phaseStartedAt = useAppStore((s) => s.phaseStartedAt);
  const sessions = useAppStore((s) => s.sessions);
  const autopilotRuns = useAppStore((s) => s.autopilotRuns);
  const prs = usePrBoard();
  const [filter, setFilter] = useState<BoardFilter>({ projectId: null, text: '' });
  const [sort, setSort] = useState<BoardSort>('activity');
  const [focus, setFocus] = useState<BoardPos | null>(null);
  // Focus follows the position only after a key or a click on the board, never on a data refresh.
  const [focusTick, setFocusTick] = useState(0);

  const pendingByRoot = useMemo(() => {
    const m = new Map<string, number>();
    for (const s of sessions) {
      if (s.pendingApprovals === 0) continue;
      const root = trimSlash(s.root);
      m.set(root, (m.get(root) ?? 0) + s.pendingApprovals);
    }
    // The same empty map while nothing waits: a session list that changed otherwise (each
    // session's status, cost) does not rebuild a thousand cards.
    return m.size > 0 ? m : NOTHING_PENDING;
  }, [sessions]);
  const featureCards = useMemo(() => toBoardCards(featureProjects, runs, pendingByRoot, phaseStartedAt, prs), [featureProjects, runs, pendingByRoot, phaseStartedAt, prs]);
  const cards = useMemo(() => {
    const nameOf = (projectId: string | null, repo: string) => featureProjects.find((p) => (projectId !== null && p.projectId === projectId) || p.repoRoot === repo)?.name ?? repo.split(/[\\/]/).pop() ?? repo;
    const blocked = autopilotRuns.length > 0 ? autopilotCards(autopilotRuns, nameOf) : [];
    // No autopilot card: the feature cards themselves, so they are not grouped and sorted again.
    return blocked.length > 0 ? [...featureCards, ...blocked] : featureCards;
  }, [featureCards, featureProjects, autopilotRuns]);
  const columns = useMemo(() => groupCards(cards, filter, sort), [cards, filter, sort]);
  const shown = BOARD_COLUMNS.reduce((n, c) => n + columns[c].length, 0);
  const fullest = Math.max(1, ...BOARD_COLUMNS.map((c) => columns[c].length));
  const projectChoices = useMemo(() => featureProjects.filter((p) => p.projectId !== null && p.features.length > 0), [featureProjects]);

  // Cards move between columns and filters hide them: keep the focus on one that exists.
  const pos = focus ? clampFocus(columns, focus) : null;
  const pick = useCallback((column: number, row: number) => setFocus({ column, row }), []);
  const tabStop = pos ?? clampFocus(columns, { column: 0, row: 0 });

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (!target.dataset.card || !tabStop) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      const card = columns[BOARD_COLUMNS[tabStop.column]!][tabStop.row];
      if (card) onOpen(card);
      return;
    }
    const next = moveFocus(columns, tabStop, e.key);
    if (!next) return;
    e.preventDefault();
    setFocus(next);
    setFocusTick((t) => t + 1);
  };

  return (
    <section className="feature-board" aria-label="Features" data-testid="feature-board">
      <div className="board-toolbar">
        <h2>Features</h2>
        <div className="board-filters">
          <label className="board-search">
            <Icon name="search" size={14} />
            <input
              className="input"
              type="search"
              value={filter.text}
              onChange={(e) => setFilter((f) => ({ ...f, text: e.target.value }))}
              placeholder="Filter features"
              title="Matches a feature's slug, project, branch or phase"
              aria-label="Filter features by slug, project, branch or phase"
              data-testid="board-filter"
            />
          </label>
          <select
            className="input board-project"
            value={filter.projectId ?? ''}
            onChange={(e) => setFilter((f) => ({ ...f, projectId: e.target.value === '' ? null : e.target.value }))}
            aria-label="Project"
            data-testid="board-project-filter"
          >
            <option value="">All projects</option>
            {projectChoices.map((p) => (
              <option key={p.projectId} value={p.projectId!}>
                {p.name}
              </option>
            ))}
          </select>
          <select className="input board-sort" value={sort} onChange={(e) => setSort(e.target.value as BoardSort)} aria-label="Sort cards by" title="Sort the cards of each column" data-testid="board-sort">
            <option value="activity">Latest activity first</option>
            <option value="name">Name</option>
            <option value="cost">Cost, highest first</option>
          </select>
          <span className="muted small board-count" data-testid="board-count" aria-live="polite">
            {shown === cards.length ? `${cards.length} ${cards.length === 1 ? 'feature' : 'features'}` : `${shown} of ${cards.length}`}
          </span>
        </div>
      </div>
      {error && (
        <p className="card-problem" role="alert" data-testid="board-error">
          <Icon name="alert" size={14} /> The features could not be listed: {error}
        </p>
      )}
      {featureProjects
        .filter((p) => p.error !== null || p.problems.length > 0)
        .map((p) => (
          <p key={p.repoRoot} className="card-problem board-project-problem" role="alert" data-testid="board-project-problem" title={p.problems.map((x) => x.message).join('\n')}>
            <Icon name="alert" size={14} /> {p.name}: {p.error ?? (p.problems.length === 1 ? p.problems[0]!.message : `${p.problems.length} feature folders could not be read (${p.problems[0]!.message}, …)`)}
          </p>
        ))}
      {loaded && cards.length === 0 && !error && (
        <p className="muted board-empty" data-testid="board-features-empty">
          No features yet. Open a project and choose <strong>Plan a feature</strong>: once its plan is approved it appears here, and moves across as it runs.
        </p>
      )}
      <div className="board-columns" onKeyDown={onKeyDown} style={{ ['--board-list-h' as string]: `${fullest * CARD_STRIDE + LIST_PADDING}px` }} data-testid="board-columns">
        {BOARD_COLUMNS.map((col, ci) => (
          <Column
            key={col}
            column={col}
            cards={columns[col]}
            tabRow={tabStop?.column === ci ? tabStop.row : null}
            focusRow={pos?.column === ci ? pos.row : null}
            focusTick={focusTick}
            index={ci}
            onPick={pick}
            onOpen={onOpen}
          />
        ))}
      </div>
    </section>
  );
}

function Column({
  column,
  index,
  cards,
  tabRow,
  focusRow,
  focusTick,
  onPick,
  onOpen,
}: {
  column: BoardColumn;
  index: number;
  cards: readonly BoardCard[];
  tabRow: number | null;
  focusRow: number | null;
  focusTick: number;
  onPick(column: number, row: number): void;
  onOpen(card: BoardCard): void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  // The virtualizer's functions change with every scroll; nothing here memoizes on them (the
  // cards get plain numbers), so the compiler's warning about stale memoized values does not apply.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtual = useVirtualizer({
    count: cards.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => CARD_STRIDE,
    overscan: OVERSCAN,
    getItemKey: (i) => cards[i]!.key,
  });

  // An arrow key landed here: bring the card into view, then give it the keyboard once rendered.
  useEffect(() => {
    if (focusRow === null || focusTick === 0) return;
    virtual.scrollToIndex(focusRow, { align: 'auto' });
    let frames = 0;
    let id = 0;
    const tryFocus = () => {
      const el = scroller.current?.querySelector<HTMLElement>(`[data-row="${focusRow}"]`);
      if (el) el.focus({ preventScroll: true });
      else if (++frames < FOCUS_FRAMES) id = requestAnimationFrame(tryFocus);
    };
    id = requestAnimationFrame(tryFocus);
    return () => cancelAnimationFrame(id);
    // The virtualizer object is stable; re-running on it would steal focus on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [focusRow, focusTick]);

  return (
    <div className={`board-column col-${column}`} role="group" aria-label={`${COLUMN_LABEL[column]}: ${cards.length}`} data-testid={`board-column-${column}`}>
      <header className="board-column-head">
        <span>{COLUMN_LABEL[column]}</span>
        <span className="board-column-count" data-testid="board-column-count">
          {cards.length}
        </span>
      </header>
      <div className="board-list" ref={scroller}>
        {cards.length === 0 ? (
          <p className="muted small board-column-empty">None</p>
        ) : (
          <div className="board-list-inner" style={{ height: virtual.getTotalSize() }}>
            {virtual.getVirtualItems().map((v) => (
              <FeatureCard
                key={v.key}
                card={cards[v.index]!}
                column={index}
                row={v.index}
                top={v.start}
                tabbable={tabRow === v.index}
                onPick={onPick}
                onOpen={onOpen}
              />
            ))}
          </div>
        )}
      </div>
    </div>
  );
}

const FeatureCard = memo(function FeatureCard({
  card,
  column,
  row,
  top,
  tabbable,
  onPick,
  onOpen,
}: {
  card: BoardCard;
  column: number;
  row: number;
  top: number;
  tabbable: boolean;
  onPick(column: number, row: number): void;
  onOpen(card: BoardCard): void;
}) {
  return (
    <div
      className={`feature-card ${card.waiting > 0 ? 'waiting' : ''}`}
      style={{ transform: `translateY(${top}px)` }}
      role="button"
      tabIndex={tabbable ? 0 : -1}
      data-card="1"
      data-row={row}
      data-slug={card.slug}
      data-testid="feature-card"
      aria-label={`${card.slug} in ${card.projectName}: ${COLUMN_LABEL[card.column]}${card.reason ? ` (${card.reason})` : ''}${card.phase ? `, phase ${card.phase.name}` : ''}${card.waiting > 0 ? `, ${card.waiting} waiting for you` : ''}, ${usd(card.costUsd)}`}
      onFocus={() => onPick(column, row)}
      onClick={() => onOpen(card)}
    >
      <div className="fc-top">
        <span className="fc-project truncate">{card.projectName}</span>
        {card.issue && (
          <a
            className="fc-issue small"
            href={card.issue.url}
            target="_blank"
            rel="noreferrer"
            title={`Planned from issue #${card.issue.number}: ${card.issue.title}`}
            aria-label={`Issue ${card.issue.number}: ${card.issue.title}`}
            tabIndex={tabbable ? 0 : -1}
            // The card opens the feature; the link opens the issue.
            onClick={(e) => e.stopPropagation()}
            onKeyDown={(e) => e.stopPropagation()}
            data-testid="feature-issue-link"
          >
            #{card.issue.number}
          </a>
        )}
        {card.resume ? (
          <ResumeButton card={card} />
        ) : (
          card.waiting > 0 && (
            <span className="badge badge-warn fc-waiting" title="An approval or an answer is waiting for you" data-testid="feature-waiting">
              <Icon name="alert" size={11} /> {card.waiting} waiting
            </span>
          )
        )}
      </div>
      <div className="fc-slug mono truncate" title={card.branch || card.slug}>
        {card.slug}
      </div>
      <div className="fc-mid">
        {card.phase && !card.problem ? <PhaseLine phase={card.phase} status={card.status} /> : <StatusLine text={card.autopilotRunId ? 'Autopilot run' : card.status === 'in_progress' ? 'All phases done' : STATUS_TEXT[card.status]} />}
        <span className="fc-cost" title={`${card.turns} turns`}>
          {usd(card.costUsd)}
        </span>
      </div>
      {card.candidates && (
        <ul className="fc-candidates" aria-label="Candidates" data-testid="feature-candidates">
          {card.candidates.map((c) => (
            <li key={c.label} className={`fc-candidate fc-candidate-${c.status}`} data-status={c.status} title={`${c.label}: ${c.status}${c.phase ? `, ${c.phase}` : ''}`}>
              {c.label} {c.status === 'running' && c.phase ? c.phase : c.status}
            </li>
          ))}
        </ul>
      )}
      {card.reason ? (
        <div className={`fc-reason ${card.column === 'failed' ? 'fc-failed' : ''}`} title={card.reason} data-testid="feature-reason">
          {card.reason}
        </div>
      ) : card.problem ? (
        <div className="fc-reason fc-problem" title={card.problem}>
          <Icon name="alert" size={12} /> {card.problem}
        </div>
      ) : (
        <div className="fc-reason muted">{card.phase ? STATUS_TEXT[card.status] : '\u00a0'}</div>
      )}
    </div>
  );
});

/** Resume on a card nothing runs: starts (or queues) a run that continues from its first unfinished phase. */
function ResumeButton({ card }: { card: BoardCard }) {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [busy, setBusy] = useState(false);
  if (!card.projectId) return null;
  const projectId = card.projectId;
  return (
    <button
      className="button small fc-resume"
      disabled={busy}
      data-testid="feature-resume"
      title="Run it again from its first unfinished phase"
      onClick={(e) => {
        e.stopPropagation();
        setBusy(true);
        client
          .invoke('featureRuns.start', { projectId, slug: card.slug })
          .catch((err: unknown) => toastError(`Could not resume ${card.slug}`, err))
          .finally(() => setBusy(false));
      }}
      onKeyDown={(e) => e.stopPropagation()}
    >
      <Icon name="refresh" size={12} /> Resume
    </button>
  );
}

/** A card's status in words where it has no phase line: cut with an ellipsis in a narrow column, whole in the tooltip. */
function StatusLine({ text }: { text: string }) {
  return (
    <span className="fc-phase muted" title={text}>
      <span className="truncate">{text}</span>
    </span>
  );
}

/** The current phase; a running one spins and counts its time (the only timer, and only on cards in view). */
function PhaseLine({ phase, status }: { phase: NonNullable<BoardCard['phase']>; status: BoardCard['status'] }) {
  const now = useNow(phase.running && phase.startedAt !== null);
  // The column already says planned or failed; the words go to the tooltip so the name keeps the room.
  const what = phase.failed ? 'failed in phase' : status === 'planned' ? 'starts with phase' : phase.running ? 'running phase' : 'at phase';
  return (
    <span className={`fc-phase ${phase.failed ? 'fc-failed' : ''}`} data-testid="feature-phase" title={`${what} ${phase.name}${phase.position ? ` (${phase.position})` : ''}`}>
      {phase.running && <Icon name="refresh" size={12} className="spin" />}
      <span className="truncate fc-phase-name">{phase.name}</span>
      {phase.position && <span className="muted fc-position">{phase.position}</span>}
      {phase.running && phase.startedAt !== null && <span className="muted fc-elapsed">{elapsed(now - phase.startedAt)}</span>}
    </span>
  );
}

/** The current time, ticking once a second while `on`: kept in the component that shows it, never in the store. */
function useNow(on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  const visible = usePageVisible(on);
  useEffect(() => {
    if (!on || !visible) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [on, visible]);
  return now;
}

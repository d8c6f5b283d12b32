import { describe, expect, it } from 'vitest';
import { autopilotCards, BOARD_COLUMNS, clampFocus, columnOf, elapsed, groupCards, matches, moveFocus, placeFeature, toBoardCards, worktreeRoot, type BoardCard, type FeatureFacts } from '../../../../src-renderer/src/features/board-model';
import type { ListedFeature, ProjectFeatures } from '../../../../src-preload/contract/features';
import type { FeatureRunInfo } from '../../../../src-preload/contract/feature-runs';

const card = (slug: string, over: Partial<BoardCard> = {}): BoardCard => ({
  key: `p1/${slug}`,
  projectId: 'p1',
  projectName: 'shop',
  slug,
  status: 'planned',
  branch: `feature/${slug}`,
  phase: null,
  costUsd: 0,
  turns: 0,
  waiting: 0,
  updatedAt: 1000,
  problem: null,
  column: over.status ?? 'planned',
  reason: null,
  resume: false,
  ...over,
});

describe('where the facts put a feature', () => {
  const facts = (over: Partial<FeatureFacts>): FeatureFacts => ({ state: 'in_progress', problem: null, failedPhase: null, liveRun: null, lastRun: null, approvals: 0, ...over });
  it('running: a run a live process holds (queued and cancelling say so)', () => {
    expect(placeFeature(facts({ liveRun: { status: 'running', position: null, phase: 'api' } }))).toEqual({ column: 'in_progress', reason: null, resume: false });
    expect(placeFeature(facts({ state: 'planned', liveRun: { status: 'queued', position: 2, phase: null } }))).toEqual({ column: 'in_progress', reason: 'Queued (#2)', resume: false });
    expect(placeFeature(facts({ liveRun: { status: 'cancelling', position: null, phase: 'api' } })).reason).toBe('Cancelling');
  });

  it('needs input: an approval waiting in its worktree, even while running; a run stopped on an unanswerable approval offers Resume', () => {
    expect(placeFeature(facts({ approvals: 2, liveRun: { status: 'running', position: null, phase: 'api' } }))).toEqual({ column: 'needs_input', reason: '2 approvals waiting', resume: false });
    expect(placeFeature(facts({ lastRun: { status: 'waiting', message: 'Nobody answered the approval.' } }))).toEqual({ column: 'needs_input', reason: 'Nobody answered the approval.', resume: true });
  });

  it('failed, with the reason: a failed run (a failed push), a failed phase, an unreadable state file', () => {
    expect(placeFeature(facts({ lastRun: { status: 'failed', message: 'pushing feature/a to origin failed: rejected' } }))).toEqual({ column: 'failed', reason: 'pushing feature/a to origin failed: rejected', resume: true });
    expect(placeFeature(facts({ state: 'failed', failedPhase: 'verify' }))).toEqual({ column: 'failed', reason: 'Phase verify failed.', resume: true });
    expect(placeFeature(facts({ state: null, problem: 'state.yml:3: bad indentation' }))).toEqual({ column: 'failed', reason: 'state.yml:3: bad indentation', resume: false });
  });

  it('a dead owner, a cancelled run, or no run at all: in progress on paper but stopped, with Resume — never under In progress', () => {
    expect(placeFeature(facts({ lastRun: { status: 'interrupted', message: 'the Flightdeck process running it (pid 42) ended' } }))).toEqual({ column: 'failed', reason: 'Stopped: the Flightdeck process running it (pid 42) ended', resume: true });
    expect(placeFeature(facts({ lastRun: { status: 'cancelled', message: null } }))).toMatchObject({ column: 'failed', resume: true });
    expect(placeFeature(facts({}))).toEqual({ column: 'failed', reason: 'Stopped: no Flightdeck process is running it.', resume: true });
  });

  it('planned, completed and merged come from the state file (an approval left in a finished worktree does not reopen it)', () => {
    expect(placeFeature(facts({ state: 'planned' }))).toEqual({ column: 'planned', reason: null, resume: false });
    expect(placeFeature(facts({ state: 'completed', approvals: 1, lastRun: { status: 'completed', message: null } }))).toEqual({ column: 'completed', reason: null, resume: false });
    expect(placeFeature(facts({ state: 'merged', approvals: 3 }))).toEqual({ column: 'merged', reason: null, resume: false });
  });

  it('a blocked autopilot run waits under Needs input; running, paused and finished ones do not', () => {
    const run = (status: 'running' | 'stopped', exitReason: 'blocked' | 'done' | null) =>
      ({ id: `ap-${status}-${exitReason}`, projectId: 'p1', repo: '/repos/shop', worktree: '/w', branch: 'autopilot/x', goal: 'g', status, costUsd: 1, updatedAt: 9, state: { exitReason, blockedStepId: exitReason === 'blocked' ? 'S3' : null } }) as never;
    const cards = autopilotCards([run('stopped', 'blocked'), run('stopped', 'done'), run('running', null)], () => 'shop');
    expect(cards.map((c) => [c.column, c.autopilotRunId, c.reason])).toEqual([['needs_input', 'ap-stopped-blocked', 'Autopilot blocked at step S3: answer to go on']]);
  });

  it('sorts by last activity (newest first), by name, or by cost', () => {
    const cs = [card('b', { updatedAt: 1, costUsd: 5 }), card('a', { updatedAt: 3, costUsd: 1 }), card('c', { updatedAt: 2, costUsd: 9 })];
    expect(groupCards(cs, { projectId: null, text: '' }).planned.map((c) => c.slug)).toEqual(['a', 'c', 'b']);
    expect(groupCards(cs, { projectId: null, text: '' }, 'name').planned.map((c) => c.slug)).toEqual(['a', 'b', 'c']);
    expect(groupCards(cs, { projectId: null, text: '' }, 'cost').planned.map((c) => c.slug)).toEqual(['c', 'b', 'a']);
  });
});

describe('board columns', () => {

  it('groups into all six columns, newest first, with a stable order on ties', () => {
    const cols = groupCards(
      [card('b', { updatedAt: 5 }), card('a', { updatedAt: 5 }), card('c', { updatedAt: 9 }), card('f', { status: 'failed' }), card('m', { status: 'merged' })],
      { projectId: null, text: '' },
    );
    expect(Object.keys(cols)).toEqual([...BOARD_COLUMNS]);
    expect(cols.planned.map((c) => c.slug)).toEqual(['c', 'a', 'b']);
    expect(cols.failed.map((c) => c.slug)).toEqual(['f']);
    expect(cols.merged.map((c) => c.slug)).toEqual(['m']);
  });

  it('filters by project and by every word of the text (slug, project, branch, phase; any case)', () => {
    const x = card('add-auth', { projectId: 'p2', projectName: 'Billing', phase: { name: 'transport-layer', running: true, startedAt: 0, failed: false, position: null } });
    expect(matches(x, { projectId: 'p2', text: '' })).toBe(true);
    expect(matches(x, { projectId: 'p1', text: '' })).toBe(false);
    expect(matches(x, { projectId: null, text: 'AUTH billing' })).toBe(true);
    expect(matches(x, { projectId: null, text: 'transport' })).toBe(true);
    expect(matches(x, { projectId: null, text: 'auth shop' })).toBe(false);
  });
});

describe('keyboard focus on the board', () => {
  const cols = groupCards([card('p1', { updatedAt: 3 }), card('p2', { updatedAt: 2 }), card('p3', { updatedAt: 1 }), card('c1', { status: 'completed' })], { projectId: null, text: '' });
  it('arrows move within a column and jump over empty columns, keeping the row where it exists', () => {
    expect(moveFocus(cols, { column: 0, row: 0 }, 'ArrowDown')).toEqual({ column: 0, row: 1 });
    expect(moveFocus(cols, { column: 0, row: 2 }, 'ArrowDown')).toEqual({ column: 0, row: 2 });
    expect(moveFocus(cols, { column: 0, row: 0 }, 'ArrowUp')).toEqual({ column: 0, row: 0 });
    expect(moveFocus(cols, { column: 0, row: 2 }, 'ArrowRight')).toEqual({ column: 3, row: 0 });
    expect(moveFocus(cols, { column: 3, row: 0 }, 'ArrowLeft')).toEqual({ column: 0, row: 0 });
    expect(moveFocus(cols, { column: 3, row: 0 }, 'ArrowRight')).toEqual({ column: 3, row: 0 });
    expect(moveFocus(cols, { column: 0, row: 0 }, 'End')).toEqual({ column: 0, row: 2 });
    expect(moveFocus(cols, { column: 0, row: 2 }, 'Home')).toEqual({ column: 0, row: 0 });
    expect(moveFocus(cols, { column: 0, row: 0 }, 'a')).toBeNull();
  });

  it('after a change the focus stays on a card that exists (or none when the board is empty)', () => {
    expect(clampFocus(cols, { column: 0, row: 9 })).toEqual({ column: 0, row: 2 });
    expect(clampFocus(cols, { column: 5, row: 0 })).toEqual({ column: 3, row: 0 });
    expect(clampFocus(cols, { column: 1, row: 0 })).toEqual({ column: 3, row: 0 });
    expect(clampFocus(groupCards([], { projectId: null, text: '' }), { column: 0, row: 0 })).toBeNull();
  });
});

describe('elapsed time', () => {
  it('reads as seconds, minutes and hours', () => {
    expect(elapsed(-5)).toBe('0s');
    expect(elapsed(42_900)).toBe('42s');
    expect(elapsed(185_000)).toBe('3m 05s');
    expect(elapsed(3_720_000)).toBe('1h 02m');
  });
});

describe('cards from the host', () => {
  const summary = (slug: string, over: Partial<ListedFeature> = {}): ListedFeature => ({
    slug,
    source: 'active',
    status: 'planned',
    branch: `feature/${slug}`,
    baseBranch: 'main',
    worktreePath: `.trees/${slug}`,
    turns: 3,
    costUsd: 0.25,
    currentPhase: { name: 'types', index: 0, count: 4, status: 'pending', startedAt: null },
    createdAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:05:00.000Z',
    problem: null,
    ...over,
  });
  const project = (features: ListedFeature[]): ProjectFeatures => ({ projectId: 'p1', name: 'shop', repoRoot: '/repos/shop', features, problems: [], error: null });
  const run = (slug: string, over: Partial<FeatureRunInfo> = {}): FeatureRunInfo => ({
    id: `frun-${slug}00001`,
    projectPath: '/repos/shop',
    slug,
    executor: 'builtin',
    status: 'running',
    position: null,
    phase: 'transport-layer',
    message: null,
    startedAt: 5000,
    endedAt: null,
    queuedAt: 4000,
    ...over,
  });

  it('a running feature shows its phase, running, timed from its PhaseStarting event', () => {
    const [c] = toBoardCards([project([summary('auth', { status: 'in_progress' })])], [run('auth')], new Map(), new Map([['frun-auth00001', 7000]]));
    expect(c).toMatchObject({ key: '/repos/shop/auth', status: 'in_progress', phase: { name: 'transport-layer', running: true, startedAt: 7000 }, costUsd: 0.25, waiting: 0 });
    // Its place among the phases when the state file is at the same phase.
    const [d] = toBoardCards([project([summary('auth', { status: 'in_progress', currentPhase: { name: 'transport-layer', index: 1, count: 4, status: 'running', startedAt: null } })])], [run('auth')], new Map(), new Map());
    expect(d!.phase?.position).toBe('2/4');
    expect(columnOf(c!)).toBe('in_progress');
  });

  it('best-of-N: one card for the feature with a chip per candidate; in progress while one runs, Needs input (pick one) when all ended', () => {
    const cand = (label: string, over: Partial<FeatureRunInfo>) => run('auth', { id: `frun-auth${label}0001`, candidate: label, ...over });
    const running = [cand('c2', { status: 'queued', phase: null, queuedAt: 4002 }), cand('c1', { status: 'running', phase: 'review', queuedAt: 4001 }), cand('c3', { status: 'failed', phase: 'verify', queuedAt: 4003 })];
    const cards = toBoardCards([project([summary('auth')])], running, new Map(), new Map());
    expect(cards).toHaveLength(1);
    expect(cards[0]!.candidates).toEqual([
      { label: 'c1', status: 'running', phase: 'review' },
      { label: 'c2', status: 'queued', phase: null },
      { label: 'c3', status: 'failed', phase: 'verify' },
    ]);
    expect(columnOf(cards[0]!)).toBe('in_progress');
    // A failed candidate does not fail the feature; all ended: the user picks.
    const ended = [cand('c1', { status: 'completed', phase: 'verify' }), cand('c2', { status: 'failed', phase: 'verify', queuedAt: 4002 })];
    const [done] = toBoardCards([project([summary('auth')])], ended, new Map(), new Map());
    expect(done).toMatchObject({ column: 'needs_input', reason: 'Candidates finished: compare them and pick one.' });
    // Picked: the feature runs as itself; its old candidates' runs no longer show on the card.
    const [picked] = toBoardCards([project([summary('auth', { status: 'in_progress' })])], [...ended, run('auth', { queuedAt: 5000 })], new Map(), new Map());
    expect(picked!.candidates).toBeUndefined();
    expect(columnOf(picked!)).toBe('in_progress');
  });

  it('an approval waiting in the worktree, or a run stopped for an answer, puts the card under Needs input', () => {
    const pending = new Map([['/repos/shop/.trees/auth', 2]]);
    const [a] = toBoardCards([project([summary('auth', { status: 'in_progress' })])], [run('auth')], pending, new Map());
    expect(a!.waiting).toBe(2);
    expect(columnOf(a!)).toBe('needs_input');
    const [b] = toBoardCards([project([summary('auth', { status: 'in_progress' })])], [run('auth', { status: 'waiting' })], new Map(), new Map());
    expect(columnOf(b!)).toBe('needs_input');
    expect(b!.resume).toBe(true);
  });

  it('a failed run of a feature the state file still calls in progress (a failed push) is under Failed with its reason; last activity counts the run', () => {
    const [c] = toBoardCards([project([summary('auth', { status: 'in_progress' })])], [run('auth', { status: 'failed', message: 'pushing feature/auth to origin failed', endedAt: Date.parse('2026-11-24T00:00:00Z') })], new Map(), new Map());
    expect(c).toMatchObject({ column: 'failed', reason: 'pushing feature/auth to origin failed', resume: true, updatedAt: Date.parse('2026-11-24T00:00:00Z') });
  });

  it('a finished run leaves the state file in charge; a queued one moves a planned feature to in progress', () => {
    const [done] = toBoardCards([project([summary('auth', { status: 'completed' })])], [run('auth', { status: 'completed' })], new Map(), new Map());
    expect(done).toMatchObject({ status: 'completed', phase: null });
    const [queued] = toBoardCards([project([summary('auth')])], [run('auth', { status: 'queued', phase: null })], new Map(), new Map());
    expect(queued).toMatchObject({ status: 'in_progress', phase: { name: 'types', running: false } });
  });

  it('without a live run the state file says where the feature is: next for planned, the failed phase, nothing once done', () => {
    const [planned] = toBoardCards([project([summary('a')])], [], new Map(), new Map());
    expect(planned!.phase).toEqual({ name: 'types', running: false, startedAt: null, failed: false, position: '1/4' });
    const [failed] = toBoardCards([project([summary('a', { status: 'failed', currentPhase: { name: 'verify', index: 3, count: 4, status: 'failed', startedAt: '2026-11-23T10:00:00Z' } })])], [], new Map(), new Map());
    expect(failed!.phase).toMatchObject({ name: 'verify', failed: true, running: false, position: '4/4' });
    // The file says running but no run holds it (cancelled, app stopped): not shown as running.
    const [stale] = toBoardCards([project([summary('a', { status: 'in_progress', currentPhase: { name: 'api', index: 1, count: 4, status: 'running', startedAt: '2026-11-23T10:00:00Z' } })])], [], new Map(), new Map());
    expect(stale!.phase).toMatchObject({ name: 'api', running: false });
    const [done] = toBoardCards([project([summary('a', { status: 'completed', currentPhase: null })])], [], new Map(), new Map());
    expect(done!.phase).toBeNull();
  });

  it('a feature whose state was never readable is a failed card carrying the problem', () => {
    const [c] = toBoardCards([project([summary('broken', { status: null, source: null, branch: null, currentPhase: null, problem: { kind: 'yaml', message: 'state.yml:3: bad indentation', path: null, line: 3 } })])], [], new Map(), new Map());
    expect(c).toMatchObject({ status: 'failed', branch: '', problem: 'state.yml:3: bad indentation' });
  });

  it('worktree paths resolve against the repository, absolute ones stay', () => {
    expect(worktreeRoot('/repos/shop/', '.trees/a')).toBe('/repos/shop/.trees/a');
    expect(worktreeRoot('/repos/shop', './.trees/a/')).toBe('/repos/shop/.trees/a');
    expect(worktreeRoot('/repos/shop', '/elsewhere/a')).toBe('/elsewhere/a');
  });
});

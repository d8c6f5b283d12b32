import { useEffect, useState } from 'react';
import type { WorktreeSetup } from '../../../src-preload/contract/worktrees';
import { useAppStore, useClient } from '../store';

/** Which worktree the host acts on: a project's listed one, or a session's own. */
export type SetupTarget = { projectId: string; slug: string } | { sessionId: string };

/** The setup's state in words, as the badge shows it. */
export function setupText(s: WorktreeSetup): string {
  const cmd = s.commands[s.step] ?? '';
  const of = s.commands.length > 1 ? ` (${Math.min(s.step + 1, s.commands.length)}/${s.commands.length})` : '';
  switch (s.state) {
    case 'pending':
      return 'Setup starting…';
    case 'running':
      return `Setup running: ${cmd}${of}`;
    case 'done':
      return 'Setup done';
    case 'failed':
      return `Setup failed: ${s.failed?.command ?? cmd} — ${s.failed?.reason ?? 'it did not finish'}`;
    case 'cancelled':
      return `Setup cancelled at ${s.failed?.command ?? cmd}`;
    case 'interrupted':
      return `Setup interrupted at ${s.failed?.command ?? cmd}: Flightdeck stopped before it finished`;
  }
}

/** Of two reads of one setup run (same start), the further one; a new run (another start) wins. */
function newer(cur: WorktreeSetup | null, next: WorktreeSetup | null): WorktreeSetup | null {
  if (!cur || !next || cur.startedAt !== next.startedAt) return next;
  if (cur.endedAt !== null && next.endedAt === null) return cur;
  if (next.endedAt === null && cur.step > next.step) return cur;
  return next;
}

/**
 * A worktree's setup (worktree.setup of a trusted repository), which runs after the worktree is
 * made: pending / running (which command) / done / failed (the command and how it ended), kept
 * current from the host's events; a running setup can be cancelled, a failed, cancelled or
 * interrupted one run again. Its output is in its terminals.
 */
export function SetupStatus({ path, initial, target, compact }: { path: string; initial: WorktreeSetup | null | undefined; target: SetupTarget; compact?: boolean }) {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [setup, setSetup] = useState<WorktreeSetup | null>(initial ?? null);
  const [busy, setBusy] = useState(false);
  // A listing answered before an event that came after it must not put the older state back.
  useEffect(() => setSetup((cur) => newer(cur, initial ?? null)), [initial]);
  useEffect(() => client.on('worktrees.setup.changed', (e) => e.path === path && setSetup(e.setup)), [client, path]);
  if (!setup || (compact && setup.state === 'done')) return null;

  const act = async (what: 'rerun' | 'cancel') => {
    setBusy(true);
    try {
      if (what === 'rerun') setSetup((await client.invoke('worktrees.setup.rerun', target)).setup);
      else await client.invoke('worktrees.setup.cancel', target);
    } catch (e) {
      toastError(what === 'rerun' ? 'Could not run the setup again' : 'Could not cancel the setup', e);
    } finally {
      setBusy(false);
    }
  };
  const active = setup.state === 'pending' || setup.state === 'running';
  const bad = setup.state === 'failed' || setup.state === 'interrupted' || setup.state === 'cancelled';
  return (
    <span className="worktree-setup" data-testid="worktree-setup" data-state={setup.state}>
      <span className={`badge ${bad ? 'badge-bad' : active ? 'badge-warn' : 'badge-ok'}`} role={bad ? 'alert' : 'status'} title={setup.commands.join('\n')}>
        {setupText(setup)}
      </span>
      {active && (
        <button className="button small" disabled={busy} onClick={() => void act('cancel')} data-testid="worktree-setup-cancel">
          Cancel setup
        </button>
      )}
      {bad && (
        <button className="button small" disabled={busy} onClick={() => void act('rerun')} data-testid="worktree-setup-rerun">
          Run setup again
        </button>
      )}
    </span>
  );
}

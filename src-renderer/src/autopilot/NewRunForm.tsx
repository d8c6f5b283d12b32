import { useState } from 'react';
import type { AutopilotExecutor, AutopilotRun } from '../../../src-preload/contract';
import { useAppStore } from '../store';

/** Start a run: the repository (a project), the goal, the acceptance command and the limits. */
export function NewRunForm({ onStarted, onCancel }: { onStarted(run: AutopilotRun): void; onCancel(): void }) {
  const projects = useAppStore((s) => s.projects);
  const profiles = useAppStore((s) => s.profiles);
  const start = useAppStore((s) => s.startAutopilotRun);
  const [picked, setProjectId] = useState(projects[0]?.id ?? '');
  // The one picked while it is still a project, else the first: the projects may arrive (added in
  // another window while "Add a project first" showed) or one may go after the form opened.
  const projectId = projects.some((p) => p.id === picked) ? picked : (projects[0]?.id ?? '');
  const [goal, setGoal] = useState('');
  const [testCmd, setTestCmd] = useState('');
  const [maxIters, setMaxIters] = useState(20);
  const [maxFix, setMaxFix] = useState(3);
  // Minutes the acceptance command may run before it is stopped (a hung test runner, a watch mode).
  const [timeoutMin, setTimeoutMin] = useState(10);
  const [executor, setExecutor] = useState<AutopilotExecutor>('builtin');
  const [profile, setProfile] = useState('');
  const [commit, setCommit] = useState(false);
  const [unsandboxed, setUnsandboxed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const run = await start({ projectId, goal, testCmd, maxIters, maxFixAttempts: maxFix, executor, profile: profile || null, commit, acceptanceUnsandboxed: unsandboxed, acceptanceTimeoutS: Math.round(timeoutMin * 60) });
      onStarted(run);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  if (projects.length === 0) return <p className="muted">Add a project first: a run works in a new worktree of one of your repositories.</p>;
  return (
    <form className="form panel ap-form" onSubmit={(e) => void submit(e)} data-testid="ap-new-run" aria-label="New autopilot run">
      <h3>New autopilot run</h3>
      <label className="field">
        <span>Repository</span>
        <select className="input" value={projectId} onChange={(e) => setProjectId(e.target.value)} data-testid="ap-project">
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} — {p.path}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Goal</span>
        <textarea className="input" rows={2} value={goal} onChange={(e) => setGoal(e.target.value)} required maxLength={2000} placeholder="Add a --json flag to the CLI" data-testid="ap-goal" />
      </label>
      <label className="field">
        <span>Acceptance command</span>
        <input className="input mono" value={testCmd} onChange={(e) => setTestCmd(e.target.value)} required maxLength={2000} placeholder="npm test" data-testid="ap-test-cmd" />
        <span className="field-help">
          Runs in the run&apos;s worktree after every step, in the agent&apos;s sandbox (its container when the session is placed in one); exit code 0 means the goal is met once the backlog is empty.
        </span>
      </label>
      <label className={`field ap-checkbox${unsandboxed ? ' ap-unsandboxed' : ''}`} title="The agent can rewrite what the command runs (test.sh, package scripts, the tests)">
        <input type="checkbox" checked={unsandboxed} onChange={(e) => setUnsandboxed(e.target.checked)} data-testid="ap-unsandboxed" /> Run the acceptance command unsandboxed (full access)
      </label>
      {unsandboxed && (
        <p className="ap-unsandboxed-warning" role="alert" data-testid="ap-unsandboxed-warning">
          FULL ACCESS: the acceptance command will run on this machine with your own permissions, and it runs whatever the agent wrote in the worktree.
        </p>
      )}
      <div className="input-row">
        <label className="field">
          <span>Acceptance timeout (minutes)</span>
          <input className="input narrow" type="number" min={1} max={24 * 60} value={timeoutMin} onChange={(e) => setTimeoutMin(Number(e.target.value))} data-testid="ap-timeout" />
        </label>
        <label className="field">
          <span>Max iterations</span>
          <input className="input narrow" type="number" min={1} max={1000} value={maxIters} onChange={(e) => setMaxIters(Number(e.target.value))} data-testid="ap-max-iters" />
        </label>
        <label className="field">
          <span>Fix attempts per step</span>
          <input className="input narrow" type="number" min={0} max={100} value={maxFix} onChange={(e) => setMaxFix(Number(e.target.value))} data-testid="ap-max-fix" />
        </label>
        <label className="field">
          <span>Executor</span>
          <select className="input" value={executor} onChange={(e) => setExecutor(e.target.value as AutopilotExecutor)} data-testid="ap-executor">
            <option value="builtin">Built-in agent</option>
            <option value="claude-code">Claude Code</option>
          </select>
        </label>
        <label className="field">
          <span>Model profile</span>
          <select className="input" value={profile} onChange={(e) => setProfile(e.target.value)} data-testid="ap-profile">
            <option value="">Default</option>
            {profiles.map((p) => (
              <option key={p.name} value={p.name}>
                {p.label || p.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <label className="field ap-checkbox">
        <input type="checkbox" checked={commit} onChange={(e) => setCommit(e.target.checked)} data-testid="ap-commit" /> Commit after each completed step
      </label>
      {error && (
        <p className="card-problem" role="alert" data-testid="ap-form-error">
          {error}
        </p>
      )}
      <div className="view-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy || !goal.trim() || !testCmd.trim() || !projectId} data-testid="ap-start">
          {busy ? 'Starting…' : 'Start run'}
        </button>
      </div>
    </form>
  );
}

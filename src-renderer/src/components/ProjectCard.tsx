import { useState } from 'react';
import type { Project } from '../../../src-preload/contract';
import { plural, relativeTime, shortPath, usd } from '../lib/format';
import { useAppStore } from '../store';
import { Icon } from './Icon';
import { Modal } from './Modal';
import { OpenTerminalButton } from '../terminals/OpenTerminalButton';
import { NewSessionDialog } from '../session-worktrees/NewSessionDialog';
import { TrustLine } from './TrustLine';

export function GitBadges({ project }: { project: Project }) {
  const g = project.git;
  if (!g) return null;
  return (
    <div className="badges">
      <span className="badge" data-testid="project-branch" title={g.detached ? 'Detached HEAD' : 'Current branch'}>
        <Icon name="branch" size={13} /> {g.branch ?? 'no commits yet'}
        {g.detached && ' (detached)'}
      </span>
      <span className={`badge ${g.dirty ? 'badge-warn' : 'badge-ok'}`} data-testid="project-dirty">
        {g.dirty ? `Uncommitted: ${plural(g.changedFiles, 'file')}` : 'Clean'}
      </span>
      <span className="badge" title="Linked git worktrees">
        <Icon name="layers" size={13} /> {plural(g.worktreeCount, 'worktree')}
      </span>
    </div>
  );
}

/** What the project's agents are doing, at a glance. */
function AgentSummary({ projectId }: { projectId: string }) {
  const all = useAppStore((s) => s.sessions);
  const setView = useAppStore((s) => s.setView);
  const sessions = all.filter((x) => x.projectId === projectId);
  if (sessions.length === 0) return null;
  const working = sessions.filter((x) => x.status === 'running').length;
  const waiting = sessions.filter((x) => x.status === 'awaiting_approval').length;
  const spent = sessions.reduce((sum, x) => sum + x.cost.usd, 0);
  return (
    <button className="agent-summary link" onClick={() => setView({ name: 'project', projectId })} data-testid="agent-summary">
      <Icon name="chat" size={13} /> {plural(sessions.length, 'session')}
      {working > 0 && <span className="badge badge-ok">{working} working</span>}
      {waiting > 0 && <span className="badge badge-warn">{waiting === 1 ? '1 needs approval' : `${waiting} need approval`}</span>}
      <span className="muted" data-testid="agent-cost">
        {usd(spent)}
      </span>
    </button>
  );
}

export function ProjectCard({ project }: { project: Project }) {
  const setView = useAppStore((s) => s.setView);
  const refresh = useAppStore((s) => s.refreshProjects);
  const remove = useAppStore((s) => s.removeProject);
  const [confirming, setConfirming] = useState(false);
  const [starting, setStarting] = useState(false);

  return (
    <article className="card project-card" data-testid="project-card" data-project-id={project.id}>
      <header className="card-header">
        <button className="card-title link" onClick={() => setView({ name: 'project', projectId: project.id })}>
          {project.name}
        </button>
        <div className="card-actions">
          <OpenTerminalButton projectId={project.id} projectName={project.name} />
          <button className="icon-button" title="Refresh git state" aria-label={`Refresh ${project.name}`} onClick={() => void refresh(project.id)}>
            <Icon name="refresh" />
          </button>
          <button className="icon-button danger" title="Remove from Flightdeck" aria-label={`Remove ${project.name}`} onClick={() => setConfirming(true)}>
            <Icon name="trash" />
          </button>
        </div>
      </header>
      <p className="card-path mono" title={project.path}>
        {shortPath(project.path)}
      </p>
      {project.problem ? (
        <p className="card-problem" role="alert">
          <Icon name="alert" size={14} /> {project.problem}
        </p>
      ) : (
        <GitBadges project={project} />
      )}
      {!project.problem && <TrustLine projectId={project.id} />}
      <AgentSummary projectId={project.id} />
      <footer className="card-footer muted card-footer-row">
        <span>{project.refreshedAt ? `Checked ${relativeTime(project.refreshedAt)}` : 'Not checked yet'}</span>
        <button className="button small" title="New session in this project (Ctrl/Cmd+N)" aria-label={`New session in ${project.name}`} onClick={() => setStarting(true)} disabled={project.problem !== null} data-testid="card-new-session">
          <Icon name="plus" size={14} /> New session
        </button>
      </footer>
      {starting && (
        <NewSessionDialog
          projectId={project.id}
          onClose={() => setStarting(false)}
          onStarted={(session) => {
            setStarting(false);
            setView({ name: 'session', sessionId: session.id });
          }}
        />
      )}
      {confirming && (
        <Modal
          title={`Remove ${project.name}?`}
          onClose={() => setConfirming(false)}
          testId="confirm-remove"
          footer={
            <>
              <button className="button" onClick={() => setConfirming(false)}>
                Cancel
              </button>
              <button
                className="button danger"
                onClick={() => {
                  setConfirming(false);
                  void remove(project.id);
                }}
              >
                Remove project
              </button>
            </>
          }
        >
          <p>
            Flightdeck forgets this project. The repository at <code>{project.path}</code> and its files are not touched.
          </p>
        </Modal>
      )}
    </article>
  );
}

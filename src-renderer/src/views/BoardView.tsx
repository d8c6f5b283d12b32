import { useCallback, useEffect, useRef, useState } from 'react';
import { useAppStore } from '../store';
import { AddProjectDialog } from '../components/AddProjectDialog';
import { Icon } from '../components/Icon';
import { ProjectCard } from '../components/ProjectCard';
import { FeatureBoard } from '../features/FeatureBoard';
import { NewPlanDialog } from '../features/NewPlanDialog';
import { BoardRuns } from '../autopilot/BoardRuns';
import type { BoardCard } from '../features/board-model';

export function BoardView() {
  const projects = useAppStore((s) => s.projects);
  const loaded = useAppStore((s) => s.projectsLoaded);
  const refreshing = useAppStore((s) => s.refreshing);
  const refresh = useAppStore((s) => s.refreshProjects);
  const [adding, setAdding] = useState(false);
  const [fromIssue, setFromIssue] = useState(false);
  const setView = useAppStore((s) => s.setView);
  const loadFeatures = useAppStore((s) => s.loadFeatures);
  // The board shows the features the store holds as soon as it holds any, without waiting for the projects' git status.
  const featuresShown = useAppStore((s) => s.featureProjects.length > 0);
  const projectIds = projects.map((p) => p.id).join(' ');
  // A project added or removed brings its features with it (its state files are read by the
  // list). Only a change: the app's start already reads the list, and a second read of a
  // thousand state files would double the board's first render.
  const seenIds = useRef<string | null>(null);
  useEffect(() => {
    if (!loaded) return;
    if (seenIds.current !== null && seenIds.current !== projectIds) void loadFeatures();
    seenIds.current = projectIds;
  }, [projectIds, loaded, loadFeatures]);
  const openFeature = useCallback((card: BoardCard) => {
    // A blocked autopilot run is answered on its own page.
    if (card.autopilotRunId) setView({ name: 'autopilot', runId: card.autopilotRunId });
    // The feature view (pipeline, rounds, diff, timeline); a repository that is no project here has only its card.
    else if (card.projectId) setView({ name: 'feature', projectId: card.projectId, slug: card.slug });
  }, [setView]);

  return (
    <section className="view">
      <header className="view-header">
        <div>
          <h1>Board</h1>
          <p className="muted">Every feature of every project, and what its agents are doing.</p>
        </div>
        <div className="view-actions">
          {projects.length > 0 && (
            <button className="button" onClick={() => void refresh()} disabled={refreshing}>
              <Icon name="refresh" className={refreshing ? 'spin' : ''} /> Refresh
            </button>
          )}
          {projects.length > 0 && (
            <button className="button" onClick={() => setFromIssue(true)} data-testid="board-from-issue" title="Plan a feature from one of a project's open GitHub issues">
              New feature from issue
            </button>
          )}
          <button className="button primary" onClick={() => setAdding(true)} data-testid="add-project">
            <Icon name="plus" /> Add project
          </button>
        </div>
      </header>
      {!loaded && !featuresShown ? (
        <div className="grid">
          {[0, 1, 2].map((i) => (
            <div key={i} className="card skeleton" />
          ))}
        </div>
      ) : loaded && projects.length === 0 ? (
        <div className="empty-state" data-testid="board-empty">
          <div className="empty-icon">
            <Icon name="plane" size={36} />
          </div>
          <h2>Add your first project</h2>
          <p>
            Point Flightdeck at a local git repository. Each agent you start will work in its own worktree or container, so your
            checkout stays yours.
          </p>
          <button className="button primary large" onClick={() => setAdding(true)}>
            <Icon name="plus" /> Add a project
          </button>
          <p className="muted small">
            Or from a terminal: <code>npm run cli -- projects add /path/to/repo</code>
          </p>
        </div>
      ) : (
        <>
          <FeatureBoard onOpen={openFeature} />
          <BoardRuns />
          <h2 className="board-projects-heading">Projects</h2>
          <div className="grid" data-testid="project-grid">
            {projects.map((p) => (
              <ProjectCard key={p.id} project={p} />
            ))}
          </div>
        </>
      )}
      {adding && <AddProjectDialog onClose={() => setAdding(false)} />}
      {fromIssue && projects.length > 0 && <NewPlanDialog projects={projects.map((p) => ({ id: p.id, name: p.name }))} projectId={projects[0]!.id} fromIssue onClose={() => setFromIssue(false)} />}
    </section>
  );
}

import { useAppStore } from '../store';
import { GitBadges } from '../components/ProjectCard';
import { Icon } from '../components/Icon';
import { relativeTime, shortPath } from '../lib/format';
import { Missing } from '../components/Missing';
import { TrustLine, UntrustButton } from '../components/TrustLine';
import { SessionList } from '../agents/SessionList';
import { OpenTerminalButton } from '../terminals/OpenTerminalButton';
import { WorktreeList } from '../worktrees/WorktreeList';
import { FeaturesPanel } from '../features/FeaturesPanel';
import { ProjectTimeline } from '../feature-view/ProjectTimeline';
import { McpSuggestions } from '../mcp/McpSuggestions';

export function ProjectView({ projectId }: { projectId: string }) {
  const project = useAppStore((s) => s.projects.find((p) => p.id === projectId));
  const refresh = useAppStore((s) => s.refreshProjects);
  const refreshing = useAppStore((s) => s.refreshing);
  const loaded = useAppStore((s) => s.projectsLoaded);
  if (!project) return <Missing what="Project" loaded={loaded} verb="removed" />;
  return (
    <section className="view" data-testid="project-view">
      <header className="view-header">
        <div>
          <h1>{project.name}</h1>
          <p className="muted mono" title={project.path}>
            {shortPath(project.path)}
          </p>
        </div>
        <div className="view-actions">
          <OpenTerminalButton projectId={project.id} projectName={project.name} labelled />
          <UntrustButton projectId={project.id} />
          <button className="button" onClick={() => void refresh(project.id)} disabled={refreshing}>
            <Icon name="refresh" className={refreshing ? 'spin' : ''} /> Refresh
          </button>
        </div>
      </header>
      <TrustLine projectId={project.id} />
      <McpSuggestions projectId={project.id} />
      <div className="panel">
        <h3>Repository</h3>
        {project.problem ? (
          <p className="card-problem" role="alert">
            <Icon name="alert" size={14} /> {project.problem}
          </p>
        ) : (
          <GitBadges project={project} />
        )}
        <dl className="facts">
          <dt>Path</dt>
          <dd className="mono">{project.path}</dd>
          <dt>Added</dt>
          <dd>{new Date(project.addedAt).toLocaleString()}</dd>
          <dt>Last checked</dt>
          <dd>{project.refreshedAt ? relativeTime(project.refreshedAt) : 'never'}</dd>
        </dl>
      </div>
      <FeaturesPanel projectId={project.id} />
      <ProjectTimeline projectId={project.id} />
      <WorktreeList projectId={project.id} />
      <SessionList projectId={project.id} />
    </section>
  );
}

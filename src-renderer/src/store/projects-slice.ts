import type { SliceCreator } from '.';
import type { Project } from '../../../src-preload/contract';

export interface ProjectsSlice {
  projects: Project[];
  projectsLoaded: boolean;
  refreshing: boolean;
  setProjects(list: Project[]): void;
  loadProjects(): Promise<void>;
  refreshProjects(id?: string): Promise<void>;
  /** Resolves to the new project, or throws the bridge error for the form to show inline. */
  addProject(path: string): Promise<Project>;
  removeProject(id: string): Promise<void>;
}

export const createProjectsSlice: SliceCreator<ProjectsSlice> = (set, get, client) => ({
  projects: [],
  projectsLoaded: false,
  refreshing: false,
  setProjects: (projects) => set({ projects, projectsLoaded: true }),
  async loadProjects() {
    try {
      set({ projects: await client.invoke('projects.list', {}), projectsLoaded: true });
    } catch (e) {
      get().toastError('Could not load projects', e);
    }
  },
  async refreshProjects(id) {
    set({ refreshing: true });
    try {
      const fresh = await client.invoke('projects.refresh', id ? { id } : {});
      if (!id) set({ projects: fresh });
      else set((s) => ({ projects: s.projects.map((p) => fresh.find((f) => f.id === p.id) ?? p) }));
    } catch (e) {
      get().toastError('Could not refresh', e);
    } finally {
      set({ refreshing: false });
    }
  },
  async addProject(path) {
    const project = await client.invoke('projects.add', { path });
    set((s) => ({ projects: s.projects.some((p) => p.id === project.id) ? s.projects : [...s.projects, project] }));
    get().toast({ level: 'success', title: `Added ${project.name}`, message: project.path });
    return project;
  },
  async removeProject(id) {
    const name = get().projects.find((p) => p.id === id)?.name ?? 'project';
    try {
      await client.invoke('projects.remove', { id });
      set((s) => ({ projects: s.projects.filter((p) => p.id !== id) }));
      const v = get().view;
      if (v.name === 'project' && v.projectId === id) get().setView({ name: 'board' });
      get().toast({ level: 'info', title: `Removed ${name}`, message: 'The repository on disk was not touched.' });
    } catch (e) {
      get().toastError(`Could not remove ${name}`, e);
    }
  },
});

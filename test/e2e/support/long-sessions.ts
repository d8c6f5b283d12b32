import { seedLongSession } from '../../fixtures/long-transcript';
import { startTestApp } from '../../support/app';
import { makeRepo, tempDir } from '../../support/temp';
import { startHost, type RunningHost } from './host';

export interface LongSessionsHost {
  host: RunningHost;
  /** The project's repository (its folder name is the project's name). */
  repoPath: string;
  /** The seeded sessions' ids, in the order asked for. */
  ids: string[];
  /** Stops the host and removes the repository and the data folder. */
  stop(): Promise<void>;
}

/**
 * A host over a data folder holding one project (a fresh repository) with long stored sessions:
 * seeded through the app's services, which are closed before the host opens the folder.
 */
export async function startHostWithLongSessions(repoPrefix: string, sessions: ReadonlyArray<{ title: string; turns: number; oldEventAfterTurn?: number }>): Promise<LongSessionsHost> {
  const repo = makeRepo(repoPrefix);
  const data = tempDir('fd-e2e-data-');
  const { app } = await startTestApp(data.path);
  const project = await app.projects.add(repo.path);
  const ids: string[] = [];
  for (const [n, s] of sessions.entries()) ids.push(await seedLongSession(app, project.id, s.title, n, s.turns, s));
  app.dispose();
  const host = await startHost({ dataDir: data.path });
  return {
    host,
    repoPath: repo.path,
    ids,
    async stop() {
      await host.stop();
      repo.cleanup();
      data.cleanup();
    },
  };
}

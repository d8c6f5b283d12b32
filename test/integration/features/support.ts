/**
 * Planning tests: the real services on a temporary data folder, a profile pointing at the
 * scripted model server, and a real repository with a bare `origin`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppServices, type HostOptions } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN, saveScriptedProfile } from '../coder/support';

export interface PlanningHarness {
  app: AppServices;
  server: ModelServer;
  repo: string;
  origin: string;
  dataDir: string;
  projectId: string;
  cleanup(): Promise<void>;
}

/** A repository on `main` with a bare `origin` (HEAD recorded), a package.json and a committer identity. */
export function repoWithOrigin(): { repo: string; origin: string; cleanup(): void } {
  const repo = makeRepo('fd-plan-repo-');
  const origin = tempDir('fd-plan-origin-');
  writeFileSync(join(repo.path, 'package.json'), JSON.stringify({ name: 'sample', scripts: { test: 'vitest run', lint: 'eslint .' } }, null, 2));
  writeFileSync(join(repo.path, 'index.js'), 'export const answer = 42;\n');
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'sample project');
  gitIn(repo.path, 'config', 'user.name', 'Plan Tester');
  gitIn(repo.path, 'config', 'user.email', 'plan@example.com');
  gitIn(origin.path, 'init', '-q', '--bare', '-b', 'main');
  gitIn(repo.path, 'remote', 'add', 'origin', origin.path);
  gitIn(repo.path, 'push', '-q', '-u', 'origin', 'main');
  gitIn(repo.path, 'remote', 'set-head', 'origin', 'main');
  return {
    repo: repo.path,
    origin: origin.path,
    cleanup() {
      repo.cleanup();
      origin.cleanup();
    },
  };
}

/** The coder suites' scripted profile, for the planning tests that import it from here. */
export { saveScriptedProfile };

export async function planningHarness(script: Script, o: Pick<HostOptions, 'repositoryTemplates'> = {}): Promise<PlanningHarness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-plan-data-');
  const home = tempDir('fd-plan-home-');
  const r = repoWithOrigin();
  const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' }, ...o });
  app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 30, maxDurationS: 120 });
  saveScriptedProfile(app, server.url);
  const project = await app.projects.add(r.repo);
  return {
    app,
    server,
    repo: r.repo,
    origin: r.origin,
    dataDir: data.path,
    projectId: project.id,
    async cleanup() {
      app.dispose();
      await server.close();
      data.cleanup();
      home.cleanup();
      r.cleanup();
    },
  };
}

/** Calls a channel the way the renderer does (validated input and output); throws the typed error. */
export async function call<T = unknown>(app: AppServices, channel: string, payload: unknown): Promise<T> {
  const r = await app.router.dispatch(channel, payload, { origin: 'test', connectionId: 'planning-test' });
  if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code, details: r.error.details });
  return r.value as T;
}

export const DESIGN_SPEC = `# add-login: user login

## Overview
Users log in with a password.

## Design
A \`login(user, password)\` function in \`auth.js\`.

## Development Phases

### Phase 1: Password hashing
Hash with scrypt.

### Phase 2: Login endpoint
Check the hash.

## Risks and Open Questions
None.
`;

export const VERIFICATION_PLAN = `# Verification: add-login

- \`npm test\` passes.
- Logging in with a wrong password fails.
`;

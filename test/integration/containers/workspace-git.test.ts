/**
 * Attack (container → host code execution through git), against the real local engine: an agent
 * in a container wrote `.gitattributes` `* filter=pwn` plus `[filter "pwn"] clean = …` into the
 * checkout's `.git/config` (mounted read-write), and the host's next commit ran it; in a worktree
 * session it rewrote the worktree's `.git` file to point at a git folder it made. Now the
 * workspace's git data is mounted read-only: those writes fail inside the container, git there
 * still reads (status, log), and the host's commits — the Changes view's and a feature run's
 * commit after its phase — go to the real repository and run nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/bridge/event-hub';
import type { SessionRecord } from '../../../src-main/agents/store/session-repo';
import { ChangesService } from '../../../src-main/changes/changes-service';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import { activeStatePath } from '../../../src-main/features/scanner';
import { readState, writeState } from '../../../src-main/features/state';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { bash, CLEAN_REVIEW, configYaml, makeRunRepo, planFeature, runHarness, text, VERIFY_PASS, type RunHarness, type RunRepo } from '../features/run/support';

const SMALL = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };
let image: string;
const dirs: Array<{ cleanup(): void }> = [];
const services: ContainerService[] = [];
let h: RunHarness | null = null;
let runRepo: RunRepo | null = null;

beforeAll(() => {
  image = ensureTestImage({ git: true });
}, 180_000);

afterEach(async () => {
  await h?.app.containers.shutdown();
  await h?.cleanup();
  runRepo?.cleanup();
  h = null;
  runRepo = null;
});

afterAll(async () => {
  for (const s of services) await s.shutdown();
  for (const d of dirs) d.cleanup();
});

function service(): ContainerService {
  const d = tempDir('fd-ctrgit-data-');
  dirs.push(d);
  const s = new ContainerService({ dataDir: d.path, logger: silentLogger, engines: () => [{ name: 'local', source: 'default', host: 'unix:///var/run/docker.sock', tls: null }] });
  services.push(s);
  return s;
}

async function inContainer(svc: ContainerService, sessionId: string, cwd: string, command: string): Promise<string> {
  const r = await new ContainerRunner(svc, sessionId).run({ cwd, command: `exec 2>&1; ${command}`, env: {}, timeoutMs: 60_000, signal: new AbortController().signal });
  return r.stdout ?? '';
}

/** The attack's writes, each followed by its exit status. */
const PLANT = (gitDir: string, marker: string) =>
  [
    `echo '* filter=pwn' > .gitattributes`,
    `printf '[filter "pwn"]\\n\\tclean = touch ${marker}; cat\\n' >> ${gitDir}/config; echo config=$?`,
    `printf '#!/bin/sh\\ntouch ${marker}\\n' > ${gitDir}/hooks/pre-commit; echo hook=$?`,
    `git config core.fsmonitor "touch ${marker}"; echo gitconfig=$?`,
  ].join('; ');

describe("a container cannot change what the host's git runs or where it looks", () => {
  it('a checkout: .git is read-only inside (git still reads), and the Changes view commit runs nothing', async () => {
    const repo = makeRepo('fd-ctrgit-repo-');
    dirs.push(repo);
    gitIn(repo.path, 'config', 'user.name', 'Test');
    gitIn(repo.path, 'config', 'user.email', 't@example.com');
    const marker = join(repo.path, 'PWNED');
    const configBefore = readFileSync(join(repo.path, '.git', 'config'), 'utf8');
    const svc = service();
    await svc.place({ sessionId: 'ses_ctrgit_a', projectId: null, worktree: repo.path, image, limits: SMALL });
    const out = await inContainer(svc, 'ses_ctrgit_a', repo.path, `git status --short; git log --format=%s -1; ${PLANT('.git', '/app/volumes/workspace/PWNED')}; mv .git gone; echo mv=$?; echo work > work.txt`);
    expect(out).toContain('initial');
    expect(out).toMatch(/config=[1-9]/);
    expect(out).toMatch(/hook=[1-9]/);
    expect(out).toMatch(/gitconfig=[1-9]/);
    expect(out).toMatch(/mv=[1-9]/);
    expect(out).toMatch(/Read-only file system|Resource busy/);
    expect(readFileSync(join(repo.path, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(existsSync(join(repo.path, '.git', 'hooks', 'pre-commit'))).toBe(false);

    const session = { id: 'ses-ctrgit00001', title: 't', root: repo.path, projectId: null, mode: 'auto-edit', state: { undo: [] } } as unknown as SessionRecord;
    const changes = new ChangesService({ hub: new EventHub(), logger: silentLogger, session: () => session, isRunning: () => false });
    await changes.commit('ses-ctrgit00001', ['work.txt', '.gitattributes'], 'agent work');
    expect(gitIn(repo.path, 'log', '--format=%s', '-1').trim()).toBe('agent work');
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  it("a worktree: its .git file and the repository's git data are read-only inside; git reads there, commits are the host's", async () => {
    const repo = makeRepo('fd-ctrgit-wt-');
    dirs.push(repo);
    const wt = join(repo.path, '.trees', 'session-1');
    gitIn(repo.path, 'worktree', 'add', '-q', '-b', 'feature/session-1', wt);
    const git = join(repo.path, '.git');
    const before = { config: readFileSync(join(git, 'config'), 'utf8'), dotGit: readFileSync(join(wt, '.git'), 'utf8'), head: readFileSync(join(git, 'worktrees', 'session-1', 'HEAD'), 'utf8') };
    const svc = service();
    await svc.place({ sessionId: 'ses_ctrgit_b', projectId: null, worktree: wt, image, limits: SMALL });
    const out = await inContainer(
      svc,
      'ses_ctrgit_b',
      wt,
      [
        'git status --short; git log --format=%s -1',
        PLANT(git, '/app/volumes/workspace/PWNED'),
        'mkdir -p evil && cp -r ' + git + ' evil/.git 2>/dev/null; echo "gitdir: /app/volumes/workspace/evil/.git" > .git; echo gitfile=$?',
        'rm -f .git; echo rm=$?',
        `echo "ref: refs/heads/main" > ${git}/worktrees/session-1/HEAD; echo head=$?`,
        'echo x > x.txt; git add x.txt && git commit -qm inside; echo commit=$?',
      ].join('; '),
    );
    expect(out).not.toContain('not a git repository');
    expect(out).toContain('initial');
    for (const what of ['config', 'hook', 'gitconfig', 'gitfile', 'rm', 'head', 'commit']) expect(out, what).toMatch(new RegExp(`${what}=[1-9]`));
    expect(readFileSync(join(git, 'config'), 'utf8')).toBe(before.config);
    expect(readFileSync(join(wt, '.git'), 'utf8')).toBe(before.dotGit);
    expect(readFileSync(join(git, 'worktrees', 'session-1', 'HEAD'), 'utf8')).toBe(before.head);
    expect(gitIn(repo.path, 'log', '--format=%s', '-1', 'feature/session-1').trim()).toBe('initial');
  }, 120_000);

  it("a feature run in a container: the agent's plant fails, and the commit after the phase lands on the feature branch, running nothing", async () => {
    runRepo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['true'] }) });
    const wt = await planFeature(runRepo.repo, 'demo', ['file']);
    const path = activeStatePath(runRepo.repo, 'demo');
    writeState(path, { ...(await readState(path)), agent: { executor: 'builtin', profile: null, model: null, mode: 'yolo', placement: { kind: 'container', image, limits: SMALL } } });
    gitIn(wt, 'commit', '-q', '-am', 'feat(demo): run in a container');
    const git = join(runRepo.repo, '.git');
    const configBefore = readFileSync(join(git, 'config'), 'utf8');
    const dotGitBefore = readFileSync(join(wt, '.git'), 'utf8');
    const marker = join(wt, 'PWNED');
    h = await runHarness([
      bash(`${PLANT(git, '/app/volumes/workspace/PWNED')}; echo "gitdir: /app/volumes/workspace" > .git; echo made > made.txt`),
      text('Phase done.'),
      CLEAN_REVIEW,
      VERIFY_PASS,
    ]);
    const r = await (await h.app.featureRuns.enqueue({ projectPath: runRepo.repo, slug: 'demo' })).done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(readFileSync(join(git, 'config'), 'utf8')).toBe(configBefore);
    expect(readFileSync(join(wt, '.git'), 'utf8')).toBe(dotGitBefore);
    expect(gitIn(runRepo.repo, 'log', '--format=%s', '-1', 'feature/demo', '--', 'made.txt').trim()).toBe('feat(demo): file');
    expect(existsSync(marker)).toBe(false);
  }, 240_000);
});

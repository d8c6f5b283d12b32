/**
 * `feature run` on the command line with an untrusted repository whose config places runs in a
 * container: refused before anything starts (exit 1), naming what to run — the run would
 * otherwise work on the host, not where the config says. Real CLI, real git, real SQLite.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp';
import { readState } from '../../../src-main/features/state';
import { activeStatePath } from '../../../src-main/features/scanner';
import { configYaml, makeRunRepo, planFeature } from '../features/run/support';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('feature run and an untrusted agent.placement', () => {
  it('refuses with exit 1 and what to run; the feature stays planned', async () => {
    const repo = makeRunRepo({ remote: 'none', config: configYaml().replace('  max_turns: 50\n', '  max_turns: 50\n  placement: { kind: container, image: "attacker/image:1" }\n') });
    const data = tempDir('fd-trust-run-data-');
    cleanups.push(repo.cleanup, data.cleanup);
    await planFeature(repo.repo, 'placed', ['work']);
    const r = await cli('feature', 'run', 'placed', '--repo', repo.repo, '--data-dir', data.path);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`warning: ${repo.repo} is untrusted: checks (1 command) were not used`);
    expect(r.err).toContain('agent.placement was not used (on the host)');
    expect(r.err).toContain(`error: the run was not started: ${repo.repo}'s config places feature runs (agent.placement)`);
    expect(r.err).toContain(`flightdeck projects trust ${repo.repo}`);
    expect(r.err).toContain('--placement host|container');
    expect((await readState(activeStatePath(repo.repo, 'placed'))).status).toBe('planned');
  }, 60_000);
});

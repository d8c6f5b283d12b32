import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workingDiff } from '../../../src-main/agents/orchestrator/git-diff';
import { makeRepo, tempDir } from '../../support/temp';

/**
 * `/diff` shows, and `/review` sends to a model, the new files of a worktree the agent (or its
 * container) wrote. A new file that is a symbolic link is shown as git shows one, by where it
 * points; what it points at (~/.aws/credentials) is never read. Regular new files are shown.
 */
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('workingDiff and new files the agent made', () => {
  it('shows a new link by its target text, never the content behind it, a file or a folder', async () => {
    const r = makeRepo('fd-wdiff-');
    const outside = tempDir('fd-wdiff-outside-');
    cleanups.push(r.cleanup, outside.cleanup);
    const secret = join(outside.path, 'credentials');
    writeFileSync(secret, 'aws_secret_access_key = do-not-send\n');
    symlinkSync(secret, join(r.path, 'notes.txt'));
    mkdirSync(join(outside.path, 'dir'));
    writeFileSync(join(outside.path, 'dir', 'id_ed25519'), 'PRIVATE KEY do-not-send\n');
    symlinkSync(join(outside.path, 'dir'), join(r.path, 'keys'));
    writeFileSync(join(r.path, 'real.txt'), 'a real new file\n');

    const { diff } = await workingDiff(r.path);
    expect(diff).not.toContain('do-not-send');
    expect(diff).toContain(`new symbolic link notes.txt -> ${secret}`);
    expect(diff).toContain(`new symbolic link keys -> ${join(outside.path, 'dir')}`);
    expect(diff).toContain('+a real new file');
  });
});

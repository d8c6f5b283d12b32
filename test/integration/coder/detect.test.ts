import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectClaude, findOnPath } from '../../../src-main/coder/detect';
import { tempDir } from '../../support/temp';
import { CLAUDE_BIN } from './support';

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('detecting the claude CLI', () => {
  it('finds an executable on PATH and skips non-executable files', () => {
    const a = tempDir('fd-path-a-');
    const b = tempDir('fd-path-b-');
    dirs.push(a, b);
    writeFileSync(join(a.path, 'claude'), 'not executable', { mode: 0o644 });
    symlinkSync(CLAUDE_BIN, join(b.path, 'claude'));
    expect(findOnPath('claude', `${a.path}:${b.path}`)).toBe(join(b.path, 'claude'));
    expect(findOnPath('claude', a.path)).toBeNull();
  });

  it('reports the version of the configured CLI', async () => {
    const d = await detectClaude(CLAUDE_BIN);
    expect(d).toMatchObject({ found: true, path: CLAUDE_BIN, version: '2.1.197', source: 'setting' });
    expect(d.message).toContain('2.1.197');
  });

  it('explains a configured path that does not work, with the install hint', async () => {
    const dir = tempDir('fd-badclaude-');
    dirs.push(dir);
    const missing = await detectClaude(join(dir.path, 'nope'));
    expect(missing).toMatchObject({ found: false, source: 'setting', installHint: 'npm install -g @anthropic-ai/claude-code' });
    expect(missing.message).toContain('not an executable file');
    mkdirSync(join(dir.path, 'bin'));
    const broken = join(dir.path, 'bin/claude');
    writeFileSync(broken, '#!/bin/sh\necho "segfault" >&2\nexit 139\n');
    chmodSync(broken, 0o755);
    const failed = await detectClaude(broken);
    expect(failed).toMatchObject({ found: false, path: broken });
    expect(failed.message).toContain('did not run');
  });
});

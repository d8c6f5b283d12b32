/**
 * Attack: a built-in loop command reads the key of a Claude Code run started by the same app.
 * Claude Code runs keep their key (for `apiKeyHelper`) and hook secret in the temporary folder;
 * Claude Code's own sandbox hides them, and bubblewrap's private /tmp hides them from the
 * built-in loop's commands only while the temporary folder is /tmp. With TMPDIR elsewhere (a
 * user's setting; macOS's per-user folder always) they must be hidden explicitly.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeKeyFile } from '../../../src-main/coder/key-file';
import { createRunDir, removeRunDir } from '../../../src-main/coder/run-dir';
import { harness, type Harness } from '../agents/harness';

const KEY = 'sk-ant-coder-run-key-0123456789abcdef';
const HOOK_SECRET = 'hook-secret-5f3e9a1c';

let h: Harness | undefined;
const savedTmp = process.env.TMPDIR;
let base: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  if (base) rmSync(base, { recursive: true, force: true });
  base = undefined;
});

describe.runIf(process.platform === 'linux')("Claude Code runs' secrets and the built-in loop's commands", () => {
  it('a `!` command cannot read a run key in a temporary folder outside /tmp', async () => {
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    base = realpathSync(mkdtempSync('/var/tmp/fd-coder-tmp-'));
    process.env.TMPDIR = base;
    // A run in progress: its folder (its hook secret) and its key file, where the Claude Code
    // executor puts them; and a run of an older build, whose folder is at the top.
    const runDir = createRunDir(base);
    writeFileSync(join(runDir, 'settings.json'), `{"secret":"${HOOK_SECRET}"}`);
    const keyPath = writeKeyFile(runDir, KEY, base);
    const earlier = mkdtempSync(join(base, 'flightdeck-coder-1@abc-'));
    writeFileSync(join(earlier, 'settings.json'), `{"secret":"${HOOK_SECRET}-earlier"}`);
    await h.app.agents.run(id, `!cat ${keyPath} ${base}/flightdeck-keys-*/* ${runDir}/settings.json ${base}/flightdeck-coder-*/settings.json ${base}/flightdeck-coder-runs-*/*/* ; ls ${base}/flightdeck-keys-*; echo DONE`);
    const out = h.events(id, 'command.result').at(-1)!;
    expect(out.text).toContain('DONE');
    expect(out.text).not.toContain(KEY);
    expect(out.text).not.toContain(HOOK_SECRET);
    removeRunDir(runDir);
  });
});

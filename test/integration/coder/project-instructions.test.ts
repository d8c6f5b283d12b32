import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_INSTRUCTIONS_BYTES, readProjectInstructions } from '../../../src-main/coder/project-instructions';

const dirs: string[] = [];
function folder(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'fd-instr-')));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the project instructions Flightdeck hands to Claude Code', () => {
  it('reads CLAUDE.md and .claude/CLAUDE.md, in that order; none gives null', async () => {
    const cd = folder();
    expect(await readProjectInstructions(cd)).toBeNull();
    mkdirSync(join(cd, '.claude'));
    writeFileSync(join(cd, 'CLAUDE.md'), 'ROOT-RULES');
    writeFileSync(join(cd, '.claude', 'CLAUDE.md'), 'DOT-RULES');
    const text = (await readProjectInstructions(cd))!;
    expect(text).toContain(`Contents of ${join(cd, 'CLAUDE.md')}`);
    expect(text.indexOf('ROOT-RULES')).toBeLessThan(text.indexOf('DOT-RULES'));
  });

  it('cuts a huge file at the limit and says so', async () => {
    const cd = folder();
    writeFileSync(join(cd, 'CLAUDE.md'), 'a'.repeat(MAX_INSTRUCTIONS_BYTES) + 'TAIL-BEYOND-LIMIT');
    const text = (await readProjectInstructions(cd))!;
    expect(text).not.toContain('TAIL-BEYOND-LIMIT');
    expect(text).toContain('a'.repeat(MAX_INSTRUCTIONS_BYTES));
    expect(text).toContain(`longer than ${MAX_INSTRUCTIONS_BYTES} bytes`);
  });

  it('skips a symlinked file, a file behind a symlinked .claude, a FIFO and a hidden path', async () => {
    const cd = folder();
    const outside = folder();
    writeFileSync(join(outside, 'CLAUDE.md'), 'OUTSIDE-SECRET');
    symlinkSync(join(outside, 'CLAUDE.md'), join(cd, 'CLAUDE.md'));
    symlinkSync(outside, join(cd, '.claude'));
    expect(await readProjectInstructions(cd)).toBeNull();

    const fifo = folder();
    // A FIFO would make a plain read wait for a writer forever.
    execFileSync('mkfifo', [join(fifo, 'CLAUDE.md')]);
    expect(await readProjectInstructions(fifo)).toBeNull();

    const hidden = folder();
    writeFileSync(join(hidden, 'CLAUDE.md'), 'HIDDEN-RULES');
    expect(await readProjectInstructions(hidden, [{ path: hidden, kind: 'dir' }])).toBeNull();
    expect(await readProjectInstructions(hidden)).toContain('HIDDEN-RULES');
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { composeContext, contextFolders, loadContext, parseContextFile } from '../../../src-main/mailbox/context';
import { tempDir } from '../../support/temp';

function put(dir: string, name: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
}

describe('layered context', () => {
  const dirs: { cleanup(): void }[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) d.cleanup();
  });

  it('composes global, then project, then task; higher priority first inside a layer; enabled: false left out', () => {
    const data = tempDir();
    const box = tempDir();
    dirs.push(data, box);
    const global = join(data.path, 'context/global');
    put(global, 'a-low.md', '---\ntitle: Low global\npriority: 1\n---\nGLOBAL-LOW\n');
    put(global, 'b-high.md', '---\ntitle: 编码规范\npriority: 10\ntags: [coding, standards]\nenabled: true\n---\nGLOBAL-HIGH\n');
    put(global, 'c-off.md', '---\ntitle: Off\npriority: 99\nenabled: false\n---\nGLOBAL-OFF\n');
    put(global, 'notes.txt', 'not markdown');
    put(join(box.path, 'context/project'), 'overview.md', '# no front matter\nPROJECT-OVERVIEW\n');
    put(join(box.path, 'context/task/task-1'), 'snippet.md', '---\npriority: -5\n---\nTASK-SNIPPET\n');
    put(join(box.path, 'context/task/task-2'), 'other.md', 'OTHER-TASK\n');

    const c = loadContext(contextFolders({ globalDir: global, root: box.path, workspace: join(box.path, 'workspace'), taskId: 'task-1' }));
    const order = ['GLOBAL-HIGH', 'GLOBAL-LOW', 'PROJECT-OVERVIEW', 'TASK-SNIPPET'].map((t) => c.text.indexOf(t));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(c.text).not.toContain('GLOBAL-OFF');
    expect(c.text).not.toContain('OTHER-TASK');
    expect(c.text).not.toContain('not markdown');
    expect(c.text).toContain('## Global context: 编码规范');
    expect(c.files.map((f) => [f.layer, f.name, f.enabled])).toEqual([
      ['global', 'c-off.md', false],
      ['global', 'b-high.md', true],
      ['global', 'a-low.md', true],
      ['project', 'overview.md', true],
      ['task', 'snippet.md', true],
    ]);
    expect(c.files[1]!.tags).toEqual(['coding', 'standards']);
    expect(c.bytes).toBe(Buffer.byteLength(c.text));
  });

  it('takes the project layer from <workspace>/.context/ when it exists', () => {
    const box = tempDir();
    dirs.push(box);
    put(join(box.path, 'workspace/.context'), 'arch.md', 'WORKSPACE-ARCH\n');
    put(join(box.path, 'context/project'), 'overview.md', 'MAILBOX-PROJECT\n');
    const c = loadContext(contextFolders({ globalDir: null, root: box.path, workspace: join(box.path, 'workspace'), taskId: null }));
    expect(c.text).toContain('WORKSPACE-ARCH');
    expect(c.text).not.toContain('MAILBOX-PROJECT');
  });

  it('keeps a file with a bad front matter, with the defaults and a warning; an alias bomb does not expand', () => {
    const f = parseContextFile('global', 'x.md', '/x.md', '---\npriority: high\nenabled: maybe\n---\nBODY\n');
    expect(f.priority).toBe(0);
    expect(f.enabled).toBe(true);
    expect(f.warnings).toHaveLength(2);
    const bomb = ['---', 'a: &a [x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]', 'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]', 'title: [*c, *c, *c, *c, *c, *c, *c, *c, *c]', '---', 'BOMB'].join('\n');
    const g = parseContextFile('global', 'bomb.md', '/bomb.md', bomb);
    expect(g.warnings[0]).toMatch(/cannot be read/);
    expect(g.body.trim()).toBe('BOMB');
    expect(composeContext([]).text).toBe('');
  });
});

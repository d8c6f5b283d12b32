import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { events, requests } from '../../../src-preload/contract';
import { runCli } from '../../../src-main/cli/main';
import { COMMANDS } from '../../../src-main/cli/commands';

/**
 * Users never see where the product's specifications came from ("seed 000", "seed 001 §7"):
 * things are named by what they are (the Coder tool, the agent loop). And what the README and
 * docs/ link to is in the repository.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
const SOURCE_NAMES = /\bseeds?\s*0\d\d\b|\bseed\s+\d+\s*§|\bseeds\//i;

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, ext) : ext.test(name) ? [path] : [];
  });
}

/** Code without its comments: what is left is what can reach the screen. */
function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('user-facing text', () => {
  it('the CLI help and every command\'s summary and usage name things by what they are', async () => {
    const out: string[] = [];
    await runCli(['--help'], { out: (l) => out.push(l), err: (l) => out.push(l) });
    const help = out.join('\n');
    expect(help).toContain('coder');
    expect(help).not.toMatch(SOURCE_NAMES);
    for (const c of COMMANDS) expect(`${c.summary} ${c.usage}`, c.name).not.toMatch(SOURCE_NAMES);
  });

  it('the contract\'s summaries (shown in listings) do too', () => {
    for (const [name, spec] of [...Object.entries(requests), ...Object.entries(events)]) expect(spec.summary, name).not.toMatch(SOURCE_NAMES);
  });

  it('the UI\'s strings do too', () => {
    for (const file of files(join(root, 'src-renderer'), /\.(tsx?|html)$/)) {
      expect(withoutComments(readFileSync(file, 'utf8')), relative(root, file)).not.toMatch(SOURCE_NAMES);
    }
  });

  it('the README and docs/ do too, and link only to files in the repository', () => {
    const docs = [join(root, 'README.md'), ...files(join(root, 'docs'), /\.md$/)];
    expect(docs.length).toBeGreaterThan(1);
    for (const file of docs) {
      const text = readFileSync(file, 'utf8');
      const name = relative(root, file);
      expect(text, name).not.toMatch(SOURCE_NAMES);
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
        if (/^[a-z]+:/i.test(target!)) continue;
        const resolved = join(file, '..', target!);
        expect(relative(root, resolved).startsWith('..'), `${name} links outside the repository: ${target}`).toBe(false);
        expect(() => statSync(resolved), `${name} links to a missing file: ${target}`).not.toThrow();
      }
    }
  });
});

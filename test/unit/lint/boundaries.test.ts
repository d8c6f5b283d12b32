import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');

/** The import-boundary rules are part of the architecture: prove they fire. */
async function lint(file: string, code: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it('the renderer cannot import main-process code, Node built-ins or electron', async () => {
    const msgs = await lint(
      'src-renderer/src/probe.ts',
      "import { readFileSync } from 'node:fs';\nimport { join } from 'path';\nimport { AppServices } from '../../src-main/app/services';\nimport { ipcRenderer } from 'electron';\nexport const x = [readFileSync, join, AppServices, ipcRenderer];\n",
    );
    expect(msgs).toHaveLength(4);
  }, 60_000);

  it('the contract stays pure', async () => {
    const msgs = await lint('src-preload/contract/probe.ts', "import { spawn } from 'node:child_process';\nimport { app } from 'electron';\nexport const x = [spawn, app];\n");
    expect(msgs).toHaveLength(2);
  }, 60_000);

  it('only the electron folder of main may import electron', async () => {
    expect(await lint('src-main/projects/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toHaveLength(1);
    expect(await lint('src-main/electron/probe.ts', "import { app } from 'electron';\nexport const x = app;\n")).toHaveLength(0);
  }, 60_000);

  it('allowed imports pass', async () => {
    expect(await lint('src-renderer/src/probe.ts', "import { z } from 'zod';\nimport { requests } from '../../src-preload/contract';\nexport const x = [z, requests];\n")).toHaveLength(0);
  }, 60_000);
});

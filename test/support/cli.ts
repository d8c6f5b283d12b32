import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { runCli } from '../../src-main/cli/main';

const ROOT = resolve(__dirname, '../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

/** `flightdeck <argv>` in this process, its output lines captured. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; lines: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n'), lines: out };
}

/** `flightdeck <args>` as its own process (tsx), for what only a real process shows: exit codes, stdio bytes, env. */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(TSX, ['src-main/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

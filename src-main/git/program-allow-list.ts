/**
 * The repository programs a user allowed, per repository (its common dir), exactly as they were
 * when allowed (`key=value`): a changed value is a different program and is refused again. Kept
 * in the data folder (`git-programs.json`), never in the repository, which an agent can write.
 */
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { programEntry, readAllowFile, type RepoProgram } from './repo-programs';

export class GitProgramAllowList {
  readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, 'git-programs.json');
  }

  allowed(commonDir: string): ReadonlySet<string> {
    return new Set(readAllowFile(this.path)[keyOf(commonDir)] ?? []);
  }

  /** Records `programs` as allowed for the repository whose common dir is `commonDir`. */
  allow(commonDir: string, programs: readonly Pick<RepoProgram, 'key' | 'value'>[]): void {
    const all = readAllowFile(this.path);
    const key = keyOf(commonDir);
    all[key] = [...new Set([...(all[key] ?? []), ...programs.map(programEntry)])];
    this.write(all);
  }

  /** Forgets every program allowed for the repository. */
  revoke(commonDir: string): void {
    const all = readAllowFile(this.path);
    delete all[keyOf(commonDir)];
    this.write(all);
  }

  private write(all: Record<string, string[]>): void {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}

function keyOf(commonDir: string): string {
  try {
    return realpathSync(commonDir);
  } catch {
    return commonDir;
  }
}

/**
 * Issue 20 §2.3: a repository's prompt templates cannot send a file from outside its prompt
 * folders to the model — not through `prompts.extra_dirs: ["/"]` and an include, not through a
 * committed symlink in `.flightdeck/prompts/` (a file or a folder). Against the real app, the
 * real git and the scripted model server: the secret must never be in a request it receives.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanDraft } from '../../../src-preload/contract';
import { gitIn, tempDir } from '../../support/temp';
import { call, DESIGN_SPEC, planningHarness, VERIFICATION_PLAN, type PlanningHarness } from './support';

const SECRET = 'aws_secret_access_key=SECRET-FROM-HOME-0451';

let h: PlanningHarness | null = null;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.cleanup();
  h = null;
  for (const c of cleanups.splice(0)) c();
});

function harness(trusted: boolean): Promise<PlanningHarness> {
  return planningHarness(
    [
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }] },
      { match: { userPattern: '' }, blocks: [{ type: 'text', text: DESIGN_SPEC }] },
    ],
    trusted ? { repositoryTemplates: () => true } : {},
  );
}

/** A folder standing for the user's home with a credentials file in it. */
function home(): string {
  const d = tempDir('fd-prompt-home-');
  cleanups.push(d.cleanup);
  writeFileSync(join(d.path, 'credentials'), SECRET + '\n');
  return d.path;
}

function commitConfig(repo: string, config: string): void {
  mkdirSync(join(repo, '.flightdeck', 'prompts', 'plan'), { recursive: true });
  writeFileSync(join(repo, '.flightdeck', 'config.yml'), config);
  writeFileSync(join(repo, '.gitignore'), '.trees/\n');
}

function commitAll(repo: string): void {
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', 'a hostile repository');
}

/** Starts a plan and asks for the design spec: the prompt of plan/system and plan/approve. */
async function approve(hh: PlanningHarness): Promise<{ error: string | null }> {
  try {
    const { draft } = await call<{ draft: PlanDraft }>(hh.app, 'features.plan.start', { projectId: hh.projectId, slug: 'leak' });
    await call(hh.app, 'features.plan.approveDraft', { draftId: draft.id });
    return { error: null };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function sentToModel(hh: PlanningHarness): string {
  return JSON.stringify(hh.server.mainRequests().map((r) => r.body));
}

describe('prompt templates stay inside the repository', () => {
  it('extra_dirs "/" with an include of a file under home is refused with an error naming the folder; the secret never reaches the model', async () => {
    h = await harness(true);
    const secretFile = join(home(), 'credentials');
    commitConfig(h.repo, 'checks: ["npm test"]\nprompts:\n  extra_dirs: ["/", ".flightdeck/prompts"]\n');
    // With "/" as a template folder, this name would be the secret file itself.
    writeFileSync(join(h.repo, '.flightdeck', 'prompts', 'plan', 'approve.j2'), `Write the spec.\n{% include "${secretFile.slice(1)}" %}\n`);
    commitAll(h.repo);
    const { error } = await approve(h);
    expect(error).toContain('prompts.extra_dirs "/" is outside the repository');
    expect(sentToModel(h)).not.toContain('SECRET-FROM-HOME');
  });

  it('an include climbing out of the prompt folder is refused', async () => {
    h = await harness(true);
    const secretFile = join(home(), 'credentials');
    commitConfig(h.repo, 'checks: ["npm test"]\n');
    writeFileSync(join(h.repo, '.flightdeck', 'prompts', 'plan', 'approve.j2'), `{% include "../../../../../../../../../../..${secretFile}" %}\n`);
    commitAll(h.repo);
    const { error } = await approve(h);
    expect(error).toMatch(/prompt error: .*is not a template name Flightdeck reads/);
    expect(sentToModel(h)).not.toContain('SECRET-FROM-HOME');
  });

  it('a committed symlink template in .flightdeck/prompts is refused naming the link', async () => {
    h = await harness(true);
    const secretFile = join(home(), 'credentials');
    commitConfig(h.repo, 'checks: ["npm test"]\n');
    symlinkSync(secretFile, join(h.repo, '.flightdeck', 'prompts', 'plan', 'approve.j2'));
    commitAll(h.repo);
    const { error } = await approve(h);
    expect(error).toContain(`${join(h.repo, '.flightdeck', 'prompts', 'plan', 'approve.j2')} is a symbolic link`);
    expect(sentToModel(h)).not.toContain('SECRET-FROM-HOME');
  });

  it('a committed symlinked folder below the prompt folder is refused naming it', async () => {
    h = await harness(true);
    const outside = home();
    mkdirSync(join(outside, 'plan'));
    writeFileSync(join(outside, 'plan', 'approve.j2'), `{% include "credentials" %}\n`);
    writeFileSync(join(outside, 'plan', 'credentials'), SECRET);
    commitConfig(h.repo, 'checks: ["npm test"]\nprompts:\n  extra_dirs: [".flightdeck/prompts/shadow"]\n');
    const prompts = join(h.repo, '.flightdeck', 'prompts');
    // `shadow/plan` is the link: the repository's `plan/approve.j2` would be the outside file.
    mkdirSync(join(prompts, 'shadow'));
    symlinkSync(join(outside, 'plan'), join(prompts, 'shadow', 'plan'));
    commitAll(h.repo);
    const { error } = await approve(h);
    expect(error).toContain(`${join(prompts, 'shadow', 'plan')} is a symbolic link`);
    expect(sentToModel(h)).not.toContain('SECRET-FROM-HOME');
  });

  it('an untrusted repository (no trust given) gets the built-in templates: its override and include are never read', async () => {
    h = await harness(false);
    const secretFile = join(home(), 'credentials');
    commitConfig(h.repo, 'checks: ["npm test"]\nprompts:\n  extra_dirs: ["/"]\n');
    writeFileSync(join(h.repo, '.flightdeck', 'prompts', 'plan', 'approve.j2'), `OVERRIDE {% include "${secretFile.slice(1)}" %}\n`);
    commitAll(h.repo);
    const { error } = await approve(h);
    expect(error).toBeNull();
    const sent = sentToModel(h);
    expect(sent).toContain('## Development Phases');
    expect(sent).not.toContain('OVERRIDE');
    expect(sent).not.toContain('SECRET-FROM-HOME');
  });
});

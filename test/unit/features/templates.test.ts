import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeatureError } from '../../../src-main/features/errors';
import { builtinPromptsDir, MAX_TEMPLATE_BYTES, projectTemplates, PromptTemplates } from '../../../src-main/features/templates';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fd-templates-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(rel: string, text: string): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

const TRUSTED = { useRepositoryTemplates: true };

function thrown(fn: () => unknown): FeatureError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FeatureError);
    return e as FeatureError;
  }
  throw new Error('expected a FeatureError');
}

describe('PromptTemplates', () => {
  it('renders the built-in plan templates with their variables', () => {
    const t = new PromptTemplates();
    const out = t.render('plan/verification', { slug: 'add-auth', design_spec: '# Spec body', checks: ['npm test', 'npm run lint'] });
    expect(out).toContain('"add-auth"');
    expect(out).toContain('# Spec body');
    expect(out).toContain('`npm test`, `npm run lint`');
    const approve = t.render('plan/approve', { slug: 'add-auth' });
    expect(approve).toContain('## Development Phases');
    expect(approve).toContain('### Phase 1: <short name>');
  });

  it('every built-in init and plan template renders with the context its caller gives', () => {
    const t = new PromptTemplates();
    const init = { repo_name: 'r', repo_tree: 'a\nb', file_samples: [{ path: 'a', content: 'x' }], detected_checks: ['npm test'], analysis: 'A' };
    for (const name of ['init/system', 'init/analyze_repo', 'init/setup_project']) expect(t.render(name, init).length).toBeGreaterThan(50);
    const plan = { slug: 's', repo_name: 'r', overview: '', message: 'hi', design_spec: 'd', verification_plan: 'v', checks: [], revision: 1, edited: false, comments: [{ doc: 'design', quote: 'a\nb', text: 'why?' }, { doc: null, quote: null, text: 'overall' }] };
    for (const name of ['plan/system', 'plan/approve', 'plan/verification', 'plan/revise']) expect(t.render(name, plan).length).toBeGreaterThan(50);
    const revise = t.render('plan/revise', plan);
    expect(revise).toContain('> a\n> b');
    expect(revise).toContain('on the whole plan');
  });

  it('an extra folder overrides a built-in template by its relative name, and includes resolve through it', () => {
    put('over/plan/system.j2', 'OVERRIDDEN for {{ slug }}');
    const t = projectTemplates(dir, ['over', 'missing-folder'], TRUSTED);
    expect(t.resolve('plan/system')).toBe(join(dir, 'over', 'plan', 'system.j2'));
    expect(t.render('plan/system', { slug: 'x' })).toBe('OVERRIDDEN for x');
    // A template including plan/system gets the override too.
    put('over/plan/revise.j2', '{% include "plan/system.j2" %} / revise {{ revision }}');
    expect(t.render('plan/revise', { slug: 'x', revision: 2 })).toBe('OVERRIDDEN for x / revise 2');
    // Templates not overridden still come from the built-in set.
    expect(t.resolve('plan/approve')).toBe(join(builtinPromptsDir(), 'plan', 'approve.j2'));
  });

  it('a syntax error is a prompt error naming the template file and line', () => {
    put('p/plan/approve.j2', 'line one\nline two\n{% for x %}\n');
    const e = thrown(() => projectTemplates(dir, ['p'], TRUSTED).render('plan/approve', { slug: 's' }));
    expect(e.kind).toBe('prompt');
    expect(e.path).toBe(join(dir, 'p', 'plan', 'approve.j2'));
    expect(e.line).toBe(3);
    expect(e.message).toContain('template "plan/approve" failed to render');
  });

  it('an undefined variable is an error with its line, not an empty hole', () => {
    put('p/plan/approve.j2', 'ok {{ slug }}\nbad {{ slgu }}\n');
    const e = thrown(() => projectTemplates(dir, ['p'], TRUSTED).render('plan/approve', { slug: 's' }));
    expect(e.kind).toBe('prompt');
    expect(e.line).toBe(2);
    expect(e.message).toContain('not defined');
  });

  it('an unknown filter (reported by nunjucks without a line) is located by its name', () => {
    put('p/plan/approve.j2', 'ok\n\n{{ slug | shout }}\n');
    const e = thrown(() => projectTemplates(dir, ['p'], TRUSTED).render('plan/approve', { slug: 's' }));
    expect(e.line).toBe(3);
    expect(e.message).toBe(`${join(dir, 'p', 'plan', 'approve.j2')}:3: template "plan/approve" failed to render: filter not found: shout`);
  });

  it('a missing template or a name leaving the prompts folder is refused', () => {
    const t = new PromptTemplates({ builtinDir: dir });
    expect(thrown(() => t.render('plan/nope', {})).message).toContain('template "plan/nope" not found');
    expect(thrown(() => t.render('../etc/passwd', {})).message).toContain('is not a template name');
    expect(thrown(() => t.render('/abs', {})).message).toContain('is not a template name');
  });
});

describe('PromptTemplates: a repository cannot read files outside its prompt folders', () => {
  let outside: string;
  beforeEach(() => {
    outside = mkdtempSync(join(tmpdir(), 'fd-templates-home-'));
    writeFileSync(join(outside, 'credentials'), 'aws_secret_access_key = SECRET-OUTSIDE');
  });
  afterEach(() => rmSync(outside, { recursive: true, force: true }));

  it('an untrusted repository (the default) gets the built-in templates only, whatever its folders hold', () => {
    put('.flightdeck/prompts/plan/system.j2', 'REPO OVERRIDE');
    const t = projectTemplates(dir, ['.flightdeck/prompts']);
    expect(t.resolve('plan/system')).toBe(join(builtinPromptsDir(), 'plan', 'system.j2'));
    expect(t.render('plan/system', { slug: 's', repo_name: 'r', overview: '' })).not.toContain('REPO OVERRIDE');
    // Not even an extra folder outside the repository is looked at: nothing of it is used.
    expect(projectTemplates(dir, ['/']).searchPath).toEqual([builtinPromptsDir()]);
  });

  it('extra_dirs "/" or a folder above the repository is refused with an error naming it', () => {
    for (const d of ['/', '..', outside]) {
      const e = thrown(() => projectTemplates(dir, [d], TRUSTED));
      expect(e.kind).toBe('prompt');
      expect(e.message).toContain(`prompts.extra_dirs "${d}" is outside the repository`);
    }
  });

  it('an include leaving the template folders is refused, and the secret is not in any output', () => {
    put('p/plan/system.j2', `head {% include "${join(outside, 'credentials')}" %}`);
    put('p/plan/approve.j2', '{% include "../../credentials" %}');
    put('p/plan/revise.j2', '{% extends "./../x.j2" %}');
    const t = projectTemplates(dir, ['p'], TRUSTED);
    for (const name of ['plan/system', 'plan/approve', 'plan/revise']) {
      const e = thrown(() => t.render(name, { slug: 's' }));
      expect(e.kind).toBe('prompt');
      expect(e.message).toMatch(/is not a template name Flightdeck reads/);
      expect(e.message).not.toContain('SECRET-OUTSIDE');
    }
  });

  it('a symlinked template, or one included, is refused naming the link', () => {
    put('p/plan/other.j2', 'fine');
    mkdirSync(join(dir, 'p', 'plan'), { recursive: true });
    symlinkSync(join(outside, 'credentials'), join(dir, 'p', 'plan', 'system.j2'));
    put('p/plan/approve.j2', 'A {% include "plan/system.j2" %}');
    const t = projectTemplates(dir, ['p'], TRUSTED);
    const direct = thrown(() => t.render('plan/system', { slug: 's' }));
    expect(direct.message).toContain(`${join(dir, 'p', 'plan', 'system.j2')} is a symbolic link`);
    const included = thrown(() => t.render('plan/approve', { slug: 's' }));
    expect(included.message).toContain('is a symbolic link');
    expect(included.message).not.toContain('SECRET-OUTSIDE');
    // Even a link that stays inside the repository is refused: links are not followed at all.
    symlinkSync(join(dir, 'p', 'plan', 'other.j2'), join(dir, 'p', 'plan', 'verification.j2'));
    expect(thrown(() => t.render('plan/verification', { slug: 's' })).message).toContain('is a symbolic link');
  });

  it('a symlinked folder, the prompt folder itself or a component below it, is refused naming it', () => {
    mkdirSync(join(outside, 'plan'));
    writeFileSync(join(outside, 'plan', 'system.j2'), 'SECRET-OUTSIDE {{ slug }}');
    mkdirSync(join(dir, '.flightdeck'));
    symlinkSync(outside, join(dir, '.flightdeck', 'prompts'));
    const e = thrown(() => projectTemplates(dir, ['.flightdeck/prompts'], TRUSTED));
    expect(e.message).toContain(`${join(dir, '.flightdeck', 'prompts')} is a symbolic link`);
    mkdirSync(join(dir, 'p'));
    symlinkSync(join(outside, 'plan'), join(dir, 'p', 'plan'));
    const t = projectTemplates(dir, ['p'], TRUSTED);
    const inner = thrown(() => t.render('plan/system', { slug: 's' }));
    expect(inner.message).toContain(`${join(dir, 'p', 'plan')} is a symbolic link`);
  });

  it("the user's own template folder overrides the built-in set; a repository's comes before it", () => {
    const user = join(outside, 'user-prompts');
    mkdirSync(join(user, 'plan'), { recursive: true });
    writeFileSync(join(user, 'plan', 'system.j2'), 'USER {{ slug }}');
    expect(projectTemplates(dir, [], { userDir: user }).render('plan/system', { slug: 's' })).toBe('USER s');
    put('p/plan/system.j2', 'REPO {% include "plan/approve.j2" %}');
    writeFileSync(join(user, 'plan', 'approve.j2'), 'USER-APPROVE');
    expect(projectTemplates(dir, ['p'], { ...TRUSTED, userDir: user }).render('plan/system', { slug: 's' })).toBe('REPO USER-APPROVE');
  });

  it('a template over the size limit is refused before it is read', () => {
    put('p/plan/system.j2', 'x'.repeat(MAX_TEMPLATE_BYTES + 1));
    expect(thrown(() => projectTemplates(dir, ['p'], TRUSTED).render('plan/system', { slug: 's' })).message).toMatch(/over the 256 KiB limit for a prompt template/);
  });
});

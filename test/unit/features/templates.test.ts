import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeatureError } from '../../../src-main/features/errors';
import { builtinPromptsDir, projectTemplates, PromptTemplates } from '../../../src-main/features/templates';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fd-templates-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function put(rel: string, text: string): void {
  mkdirSync(join(dir, rel, '..'), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

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
    const t = projectTemplates(dir, ['over', 'missing-folder']);
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
    const e = thrown(() => projectTemplates(dir, ['p']).render('plan/approve', { slug: 's' }));
    expect(e.kind).toBe('prompt');
    expect(e.path).toBe(join(dir, 'p', 'plan', 'approve.j2'));
    expect(e.line).toBe(3);
    expect(e.message).toContain('template "plan/approve" failed to render');
  });

  it('an undefined variable is an error with its line, not an empty hole', () => {
    put('p/plan/approve.j2', 'ok {{ slug }}\nbad {{ slgu }}\n');
    const e = thrown(() => projectTemplates(dir, ['p']).render('plan/approve', { slug: 's' }));
    expect(e.kind).toBe('prompt');
    expect(e.line).toBe(2);
    expect(e.message).toContain('not defined');
  });

  it('an unknown filter (reported by nunjucks without a line) is located by its name', () => {
    put('p/plan/approve.j2', 'ok\n\n{{ slug | shout }}\n');
    const e = thrown(() => projectTemplates(dir, ['p']).render('plan/approve', { slug: 's' }));
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

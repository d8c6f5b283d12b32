import { describe, expect, it } from 'vitest';
import type { Session } from '../../../../src-preload/contract/agents';
import type { ProjectFeatures } from '../../../../src-preload/contract/features';
import { contextProjectId, matchScore, paletteEntries, rankEntries, VIEWS, type PaletteSource } from '../../../../src-renderer/src/keyboard/palette-model';
import { chordText, isMac, nextMode, shortcutList, shortcutOf } from '../../../../src-renderer/src/keyboard/shortcuts';

const session = (id: string, title: string, projectId: string | null, extra: Partial<Session> = {}) => ({ id, title, projectId, mode: 'default', archived: false, ...extra }) as unknown as Session;
const feature = (slug: string) => ({ slug, status: 'in_progress' });

function source(over: Partial<PaletteSource> = {}): PaletteSource {
  return {
    view: { name: 'board' },
    projects: [
      { id: 'prj-aaaaaa1', name: 'webshop', path: '/src/webshop' },
      { id: 'prj-bbbbbb2', name: 'billing', path: '/src/billing' },
    ],
    sessions: [session('ses-1', 'Fix the checkout total', 'prj-aaaaaa1'), session('ses-2', 'Old idea', 'prj-bbbbbb2', { archived: true }), session('ses-3', 'Scratch', null)],
    featureProjects: [{ projectId: 'prj-aaaaaa1', name: 'webshop', repoRoot: '/src/webshop', features: [feature('dark-mode'), feature('gift-cards')], problems: [], error: null }] as unknown as ProjectFeatures[],
    terminals: [{ id: 'trm-1', title: 'webshop: bash' }],
    modes: [
      { value: 'plan', label: 'Plan' },
      { value: 'default', label: 'Default' },
      { value: 'auto-edit', label: 'Auto-edit' },
    ],
    chords: { newSession: 'Ctrl+N', changes: 'Ctrl+Shift+G', shortcuts: '?', modeCycle: 'Shift+Tab' },
    ...over,
  };
}

describe('the command palette reaches everything', () => {
  it('lists every view, project, session (archived ones said so), feature and terminal, each opening its view', () => {
    const entries = paletteEntries(source());
    const ids = entries.map((e) => e.id);
    for (const v of VIEWS) expect(ids).toContain(`view:${v.view.name}`);
    expect(entries.find((e) => e.id === 'project:prj-bbbbbb2')?.action).toEqual({ type: 'view', view: { name: 'project', projectId: 'prj-bbbbbb2' } });
    expect(entries.find((e) => e.id === 'session:ses-1')).toMatchObject({ detail: 'webshop', action: { type: 'view', view: { name: 'session', sessionId: 'ses-1' } } });
    expect(entries.find((e) => e.id === 'session:ses-2')?.detail).toBe('billing · archived');
    expect(entries.find((e) => e.id === 'session:ses-3')?.detail).toBe('Other folders');
    // A feature is listed under its project: it takes the project's id.
    expect(entries.find((e) => e.id === 'feature:prj-aaaaaa1/dark-mode')?.action).toEqual({ type: 'view', view: { name: 'feature', projectId: 'prj-aaaaaa1', slug: 'dark-mode' } });
    expect(entries.find((e) => e.id === 'feature:prj-aaaaaa1/gift-cards')?.detail).toBe('webshop · in progress');
    expect(entries.find((e) => e.id === 'terminal:trm-1')?.action).toEqual({ type: 'open-terminal', terminalId: 'trm-1' });
    expect(ids).toEqual(expect.arrayContaining(['action:new-session:prj-aaaaaa1', 'action:new-session:prj-bbbbbb2', 'action:add-project', 'action:shortcuts']));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('offers the open session its Changes and the other modes; elsewhere neither', () => {
    const inSession = paletteEntries(source({ view: { name: 'session', sessionId: 'ses-1' } }));
    expect(inSession[0]).toMatchObject({ id: 'action:changes', shortcut: 'Ctrl+Shift+G', action: { type: 'open-changes', sessionId: 'ses-1' } });
    expect(inSession.filter((e) => e.action.type === 'set-mode').map((e) => e.label)).toEqual(['Switch to Plan mode', 'Switch to Auto-edit mode']);
    const onBoard = paletteEntries(source());
    expect(onBoard.some((e) => e.action.type === 'open-changes' || e.action.type === 'set-mode')).toBe(false);
  });

  it('puts "New session" in the project being looked at first, with the chord', () => {
    const entries = paletteEntries(source({ view: { name: 'feature', projectId: 'prj-bbbbbb2', slug: 'x' } }));
    const news = entries.filter((e) => e.action.type === 'new-session');
    expect(news.map((e) => e.label)).toEqual(['New session in billing', 'New session in webshop']);
    expect(news[0]!.shortcut).toBe('Ctrl+N');
    expect(news[1]!.shortcut).toBeUndefined();
  });

  it('knows the project of the view', () => {
    const sessions = source().sessions;
    expect(contextProjectId({ name: 'project', projectId: 'p' }, sessions)).toBe('p');
    expect(contextProjectId({ name: 'session', sessionId: 'ses-2' }, sessions)).toBe('prj-bbbbbb2');
    expect(contextProjectId({ name: 'session', sessionId: 'ses-3' }, sessions)).toBeNull();
    expect(contextProjectId({ name: 'session', sessionId: 'gone' }, sessions)).toBeNull();
    expect(contextProjectId({ name: 'board' }, sessions)).toBeNull();
  });
});

describe('palette matching', () => {
  it('matches in order, case-insensitively, and refuses what is not there', () => {
    expect(matchScore('chk', 'Fix the checkout total')).not.toBeNull();
    expect(matchScore('CHECKOUT', 'Fix the checkout total')).not.toBeNull();
    expect(matchScore('kc', 'check')).toBeNull();
    expect(matchScore('zzz', 'Board')).toBeNull();
    expect(matchScore('', 'Board')).toBe(0);
  });

  it('ranks a substring above a scattered match, a word start above a middle, an exact name first', () => {
    expect(matchScore('term', 'Terminals')!).toBeGreaterThan(matchScore('term', 'the remote main')!);
    expect(matchScore('set', 'Settings')!).toBeGreaterThan(matchScore('set', 'Reset')!);
    expect(matchScore('board', 'Board')!).toBeGreaterThan(matchScore('board', 'Board filter')!);
  });

  it('needs every word, on the label or the detail, and keeps list order for an empty query', () => {
    const entries = paletteEntries(source());
    expect(rankEntries(entries, '')).toEqual(entries.slice(0, 50));
    const hits = rankEntries(entries, 'checkout webshop');
    expect(hits[0]!.id).toBe('session:ses-1');
    expect(rankEntries(entries, 'checkout billing').some((e) => e.id === 'session:ses-1')).toBe(false);
    expect(rankEntries(entries, 'settings')[0]!.id).toBe('view:settings');
    expect(rankEntries(entries, 'gift')[0]!.id).toBe('feature:prj-aaaaaa1/gift-cards');
    expect(rankEntries(entries, 'new sess bill')[0]!.id).toBe('action:new-session:prj-bbbbbb2');
    expect(rankEntries(entries, 'nothing-like-this')).toEqual([]);
    // A view answers to its synonyms, which are not shown.
    expect(rankEntries(entries, 'docker')[0]!.id).toBe('view:containers');
    expect(entries.find((e) => e.id === 'view:containers')?.detail).toBeUndefined();
    expect(rankEntries(entries, 'e', 3)).toHaveLength(3);
  });
});

describe('global shortcuts', () => {
  const key = (k: string, m: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...m });
  it('reads Ctrl on Linux and Windows, Cmd on a Mac', () => {
    expect(shortcutOf(key('k', { ctrlKey: true }), false)).toBe('palette');
    expect(shortcutOf(key('K', { ctrlKey: true }), false)).toBe('palette');
    expect(shortcutOf(key('k', { metaKey: true }), false)).toBeNull();
    expect(shortcutOf(key('k', { metaKey: true }), true)).toBe('palette');
    expect(shortcutOf(key('k', { ctrlKey: true }), true)).toBeNull();
    expect(shortcutOf(key('n', { ctrlKey: true }), false)).toBe('newSession');
    expect(shortcutOf(key('n', { ctrlKey: true, shiftKey: true }), false)).toBeNull();
    expect(shortcutOf(key('G', { ctrlKey: true, shiftKey: true }), false)).toBe('changes');
    expect(shortcutOf(key('g', { ctrlKey: true }), false)).toBeNull();
    expect(shortcutOf(key('?', { shiftKey: true }), false)).toBe('shortcuts');
    expect(shortcutOf(key('?', { ctrlKey: true }), false)).toBeNull();
    expect(shortcutOf(key('k'), false)).toBeNull();
    expect(isMac('MacIntel')).toBe(true);
    expect(isMac('Linux x86_64')).toBe(false);
  });
  it('lists every global chord in the ? list, written for the platform', () => {
    const keys = shortcutList(false).map((s) => s.keys);
    for (const id of ['palette', 'newSession', 'changes', 'shortcuts', 'modeCycle'] as const) expect(keys).toContain(chordText(id, false));
    expect(shortcutList(true).map((s) => s.keys)).toContain('⌘K');
  });
  it('cycles modes as Claude Code does, never into YOLO', () => {
    expect(nextMode('default')).toBe('auto-edit');
    expect(nextMode('auto-edit')).toBe('plan');
    expect(nextMode('plan')).toBe('default');
    expect(nextMode('yolo')).toBe('default');
  });
});

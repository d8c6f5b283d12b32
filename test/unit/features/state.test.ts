import { describe, expect, it } from 'vitest';
import { newFeatureState, parseState, serializeState, sumPhases, withTotals, FEATURE_STATUSES, type PhaseRecord } from '../../../src-main/features/state';

const NOW = new Date('2026-02-10T10:30:00Z');

function sample() {
  return newFeatureState({
    slug: 'add-auth',
    now: NOW,
    worktreePath: '.trees/add-auth',
    branch: 'feature/add-auth',
    baseBranch: 'main',
    devPhases: ['types', 'transport'],
  });
}

describe('feature state', () => {
  it('has exactly the five statuses', () => {
    expect([...FEATURE_STATUSES]).toEqual(['planned', 'in_progress', 'completed', 'failed', 'merged']);
  });

  it('a new feature is planned with its dev phases then review and verify', () => {
    const s = sample();
    expect(s.status).toBe('planned');
    expect(s.current_phase).toBe(0);
    expect(s.phases.map((p) => [p.name, p.kind, p.status])).toEqual([
      ['types', 'dev', 'pending'],
      ['transport', 'dev', 'pending'],
      ['review', 'quality', 'pending'],
      ['verify', 'quality', 'pending'],
    ]);
    expect(s.feature).toEqual({ slug: 'add-auth', created_at: NOW.toISOString(), updated_at: NOW.toISOString() });
    expect(s.pr).toBeNull();
    expect(s.total).toEqual({ turns: 0, cost_usd: 0, duration_secs: 0, cost: { input_tokens: 0, output_tokens: 0 } });
  });

  it('round-trips through YAML text', () => {
    const s = sample();
    s.pr = { url: 'https://github.com/o/r/pull/7', number: 7, title: 'feat: auth' };
    s.phases[0] = { ...s.phases[0]!, status: 'completed', turns: 5, cost_usd: 0.42, duration_secs: 133, cost: { input_tokens: 1000, output_tokens: 200 }, started_at: NOW.toISOString() };
    const text = serializeState(withTotals(s));
    expect(text).toContain('status: planned');
    expect(parseState(text, 'state.yml')).toEqual(withTotals(s));
  });

  it('totals are the sum of the phases', () => {
    const p = (turns: number, cost: number, secs: number, i: number, o: number): PhaseRecord => ({
      ...sample().phases[0]!,
      turns,
      cost_usd: cost,
      duration_secs: secs,
      cost: { input_tokens: i, output_tokens: o },
    });
    expect(sumPhases([p(5, 0.5, 10, 100, 10), p(12, 1.25, 20, 200, 20), p(0, 0, 0, 0, 0)])).toEqual({
      turns: 17,
      cost_usd: 1.75,
      duration_secs: 30,
      cost: { input_tokens: 300, output_tokens: 30 },
    });
    expect(sumPhases([])).toEqual({ turns: 0, cost_usd: 0, duration_secs: 0, cost: { input_tokens: 0, output_tokens: 0 } });
  });

  it('refuses to serialize an invalid state', () => {
    const s = { ...sample(), status: 'done' } as unknown as ReturnType<typeof sample>;
    expect(() => serializeState(s)).toThrow();
  });
});

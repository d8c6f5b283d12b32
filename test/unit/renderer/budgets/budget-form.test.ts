import { describe, expect, it } from 'vitest';
import { limitProblem, parseUsd } from '../../../../src-renderer/src/budgets/budget-form';

describe('budget form', () => {
  it.each([
    ['', null],
    ['  ', null],
    ['5', 5],
    ['$2.50', 2.5],
    ['0', 0],
  ])('reads %j as %j', (t, v) => expect(parseUsd(t)).toBe(v));

  it.each(['1,5', 'abc', '-1', '1e3', '2.'])('refuses %j', (t) => expect(parseUsd(t)).toBeNaN());

  it('names what is wrong: unreadable, above the maximum, too large; nothing when fine or empty', () => {
    expect(limitProblem({ warn: 'x', max: '' })).toMatch(/dollars/);
    expect(limitProblem({ warn: '10', max: '5' })).toMatch(/above the maximum/);
    expect(limitProblem({ warn: '', max: '2000000' })).toMatch(/1,000,000/);
    expect(limitProblem({ warn: '5', max: '10' })).toBeNull();
    expect(limitProblem({ warn: '', max: '' })).toBeNull();
  });
});

/**
 * Edits on many generated plans: random prose between the lines the runner understands, random
 * section order, LF or CRLF, with or without a final newline. Each edit must change only the
 * lines it moves or adds, keep the line endings, and leave a valid plan.
 */
import { describe, expect, it } from 'vitest';
import { blockNext, completeNext, joinLines, parsePlan, readSteps, unblock, validatePlan } from '../../../src-main/autopilot/plan';

/** mulberry32: a tiny seeded generator, so a failure names a seed that reproduces it. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lines that are neither headings, fences, list items nor indented: prose the runner must not touch. */
const JUNK = ['说明：这一段保持原样。', '<!-- keep -->', '   ', '', '### 小节', '> 引用', '| a | b |', 'trailing spaces   ', '\tnot indented under a step? no: after a blank line'];

function generate(seed: number): { text: string; eol: string; final: boolean; stepCount: number } {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const junk = () => (r() < 0.4 ? [pick(JUNK)] : []);
  const stepCount = 1 + Math.floor(r() * 5);
  const steps = Array.from({ length: stepCount }, (_, i) => `- [ ] (STEP_ID=${String(i + 1).padStart(3, '0')}) 步骤 ${i + 1} ${pick(['', 'with `code`', '（中文）'])}`.trimEnd());
  const sections: string[][] = [
    ['## Goal', '- 目标'],
    ['## Acceptance', '- [ ] TEST_CMD passes: `node --test`'],
    ['## Next (exactly ONE item)', steps[0]!],
    ['## Backlog', ...steps.slice(1).flatMap((s) => [s, ...(r() < 0.3 ? ['', pick(JUNK.filter((j) => !j.startsWith('\t')))] : [])])],
    ['## Done', '- [x] (STEP_ID=000) init'],
    ['## Notes', '- 备注'],
  ];
  if (r() < 0.5) sections.push(['## 背景', '未知的小节。']);
  for (let i = sections.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [sections[i], sections[j]] = [sections[j]!, sections[i]!];
  }
  const lines = ['# PLAN', ...junk(), ...sections.flatMap((s) => [...s.flatMap((l) => [l, ...(l.startsWith('## ') ? junk() : [])]), '', ...junk()])];
  const eol = r() < 0.5 ? '\n' : '\r\n';
  const final = r() < 0.5;
  let text = lines.join(eol) + (final ? eol : '');
  if (!final) text = text.replace(/(\r?\n)+$/, '');
  return { text, eol, final, stepCount };
}

/** The texts of the lines, minus one occurrence of each of the given lines. */
function without(text: string, drop: string[]): string[] {
  const lines = parsePlan(text).lines.map((l) => l.text);
  for (const d of drop) {
    const i = lines.indexOf(d);
    expect(i, `line ${JSON.stringify(d)}`).toBeGreaterThanOrEqual(0);
    lines.splice(i, 1);
  }
  return lines;
}

function expectEndings(text: string, eol: string, final: boolean) {
  const lines = parsePlan(text).lines;
  lines.slice(0, -1).forEach((l) => expect(l.eol).toBe(eol));
  expect(lines[lines.length - 1]!.eol).toBe(final ? eol : '');
  expect(joinLines(lines)).toBe(text);
}

describe('plan edits on generated plans', () => {
  for (let seed = 1; seed <= 60; seed++) {
    it(`seed ${seed}: complete, block and unblock touch only their lines`, () => {
      const { text, eol, final, stepCount } = generate(seed);
      expect(validatePlan(text)).toEqual([]);
      const before = readSteps(text);
      const nextLine = parsePlan(text).lines[before.next!.line - 1]!.text;
      const firstBacklog = before.backlog[0] ? parsePlan(text).lines[before.backlog[0].line - 1]!.text : undefined;

      const done = completeNext(text);
      expect(validatePlan(done.text)).toEqual([]);
      expectEndings(done.text, eol, final);
      const moved = [nextLine, ...(firstBacklog ? [firstBacklog] : [])];
      expect(without(done.text, [nextLine.replace('[ ]', '[x]'), ...moved.slice(1)])).toEqual(without(text, moved));
      expect(readSteps(done.text).done.map((s) => s.id)).toEqual(['000', '001']);
      expect(readSteps(done.text).next?.id).toBe(stepCount > 1 ? '002' : undefined);

      const blocked = blockNext(text, { reason: 'r', decision: 'd' });
      expect(validatePlan(blocked.text)).toEqual([]);
      expectEndings(blocked.text, eol, final);
      const back = unblock(blocked.text, '001', 'answer');
      expect(validatePlan(back.text)).toEqual([]);
      expectEndings(back.text, eol, final);
      // The Blocked heading goes in right before Notes, with a blank line after it; it stays once added.
      // The step returns at the end of Next's content, which may be after prose it used to precede.
      const rest = without(back.text, ['- BLOCKED (STEP_ID=001): r — a human must decide: d', '- ANSWER (STEP_ID=001): answer', nextLine]);
      const at = rest.indexOf('## Blocked');
      expect(rest.slice(at, at + 3)).toEqual(['## Blocked', '', rest.find((l) => l.startsWith('## Notes'))]);
      rest.splice(at, 2);
      expect(rest).toEqual(without(text, [nextLine]));
      expect(readSteps(back.text).next?.id).toBe('001');
    });
  }
});

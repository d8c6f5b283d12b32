import { describe, expect, it } from 'vitest';
import type { TerminalInfo } from '../../../src-preload/contract';
import { terminalTabs } from '../../../src-renderer/src/terminals/terminal-tabs';

const term = (id: string, startedAt: number, o: Partial<TerminalInfo> = {}): TerminalInfo =>
  ({ id, title: id, kind: 'shell', command: null, cwd: '/p', owner: {}, pid: 1, status: 'running', exitCode: null, signal: null, problem: null, startedAt, exitedAt: null, outputEnd: null, cols: 80, rows: 24, ...o }) as TerminalInfo;
const cmd = (id: string, startedAt: number, sessionId: string, status: 'running' | 'exited' = 'exited') => term(id, startedAt, { kind: 'command', command: id, owner: { sessionId }, status });
const ids = (tabs: ReturnType<typeof terminalTabs>) => tabs.map((t) => (t.kind === 'terminal' ? t.terminal.id : `${t.sessionId}[${t.terminals.map((x) => x.id).join(',')}]`));

describe('terminal tabs', () => {
  it('puts running terminals first, then the newest', () => {
    expect(ids(terminalTabs([term('old', 1), term('new', 3), term('done', 5, { status: 'exited' }), term('mid', 2)]))).toEqual(['new', 'mid', 'old', 'done']);
  });
  it("groups an agent session's commands into one tab (newest or running command first), where its lead sorts", () => {
    const tabs = terminalTabs([term('shell', 10), cmd('c1', 1, 's1'), cmd('c2', 20, 's1'), cmd('c3', 5, 's1', 'running'), cmd('d1', 30, 's2'), term('gone', 40, { status: 'exited' })]);
    expect(ids(tabs)).toEqual(['shell', 's1[c3,c2,c1]', 'gone', 'd1']);
  });
  it("keeps a session's lone command, and a shell opened for a session, as tabs of their own", () => {
    expect(ids(terminalTabs([cmd('only', 1, 's1'), term('sh', 2, { owner: { sessionId: 's1' } })]))).toEqual(['sh', 'only']);
  });
});

import type { TerminalInfo } from '../../../src-preload/contract';

/** How a terminal's state reads in a badge, and which badge colour it gets. */
export function terminalStatus(t: TerminalInfo): { label: string; tone: 'ok' | 'bad' | 'warn' | 'neutral' } {
  if (t.status === 'running') return { label: 'Running', tone: 'ok' };
  if (t.signal) return { label: `Killed by ${t.signal}`, tone: 'warn' };
  if (t.exitCode === null) return { label: 'Ended', tone: 'warn' };
  return { label: `Exited with code ${t.exitCode}`, tone: t.exitCode === 0 ? 'neutral' : 'bad' };
}

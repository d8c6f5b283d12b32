/**
 * `feature init` in the app, in two steps: the agents' proposal is shown before anything is
 * written. `propose` starts init and answers with the files it would write as soon as they are
 * known (init waits at its confirmation); `decide` writes them (init goes on) or drops them.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../../src-preload/contract';
import type { InitFile, InitResult } from './planning-service';

/** A proposal nobody answers is dropped after this long (its init is not left waiting forever). */
const PROPOSAL_TTL_MS = 30 * 60_000;

interface Pending {
  decide(write: boolean): void;
  done: Promise<InitResult>;
  timer: NodeJS.Timeout;
}

export class InitProposals {
  private readonly pending = new Map<string, Pending>();

  /** Runs `init` (given the confirmation to wait at) until its files are known. */
  propose(init: (confirm: (files: InitFile[]) => Promise<boolean>) => Promise<InitResult>): Promise<{ proposalId: string; files: InitFile[] }> {
    return new Promise((resolve, reject) => {
      const proposalId = `init-${randomBytes(6).toString('hex')}`;
      let asked = false;
      // init awaits its agents before it asks: `done` is assigned by the time the confirmation runs.
      const done: Promise<InitResult> = init(
        (files) =>
          new Promise<boolean>((decide) => {
            asked = true;
            const timer = setTimeout(() => this.drop(proposalId), PROPOSAL_TTL_MS);
            timer.unref?.();
            this.pending.set(proposalId, { decide, done, timer });
            resolve({ proposalId, files });
          }),
      );
      // Failing before the files were known fails the proposal; after, decide() reports it.
      done.catch((e: unknown) => {
        if (!asked) reject(e);
      });
    });
  }

  /** Writes the proposal's files (`write`) or drops them; null when dropped. */
  async decide(proposalId: string, write: boolean): Promise<InitResult | null> {
    const p = this.pending.get(proposalId);
    if (!p) throw new AppError('not_found', 'That init proposal is no longer waiting (written, dropped, or expired after 30 minutes): set up features again.');
    this.pending.delete(proposalId);
    clearTimeout(p.timer);
    p.decide(write);
    if (!write) {
      await p.done.catch(() => undefined); // Declined: the refusal is the expected outcome.
      return null;
    }
    return p.done;
  }

  private drop(proposalId: string): void {
    const p = this.pending.get(proposalId);
    if (!p) return;
    this.pending.delete(proposalId);
    p.decide(false);
  }
}

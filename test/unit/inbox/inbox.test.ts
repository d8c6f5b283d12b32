import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Approval, FeatureRunEvent } from '../../../src-preload/contract';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { entryForApproval, entryForRunEvent } from '../../../src-main/inbox/inbox-model';
import { InboxService, MAX_ENTRIES } from '../../../src-main/inbox/inbox-service';
import { silentLogger } from '../../../src-main/platform/logger';

const totals = { turns: 3, costUsd: 0.1, inputTokens: 1, outputTokens: 1, durationSecs: 5 };
const finished = (outcome: 'completed' | 'failed' | 'waiting' | 'cancelled' | 'interrupted', message: string | null = null, seq = 1): FeatureRunEvent => ({
  runId: 'frun-abcdef',
  projectPath: '/home/me/shop',
  slug: 'add-cart',
  seq,
  ts: 1,
  data: { type: 'RunFinished', success: outcome === 'completed', outcome, message, totals, delivery: outcome === 'completed' ? { kind: 'local' } : null },
});

describe('inbox entries', () => {
  it('a finished, failed or waiting run makes an entry that opens the feature; a cancelled one does not', () => {
    expect(entryForRunEvent(finished('completed'), 'prj-1')).toMatchObject({ kind: 'finished', title: 'Feature finished: add-cart', body: 'shop · completed locally', target: { kind: 'feature', projectId: 'prj-1', slug: 'add-cart' } });
    expect(entryForRunEvent(finished('failed', 'verify failed 3 times'), 'prj-1')).toMatchObject({ kind: 'failed', body: 'verify failed 3 times' });
    expect(entryForRunEvent(finished('waiting'), null)).toMatchObject({ kind: 'needs_input', target: { projectId: null, projectPath: '/home/me/shop' } });
    expect(entryForRunEvent(finished('cancelled'), 'prj-1')).toBeNull();
    expect(entryForRunEvent(finished('interrupted'), 'prj-1')).toBeNull();
  });

  it("a best-of-N candidate's end names the candidate and asks for a pick, never says the feature finished", () => {
    const cand = (outcome: 'completed' | 'failed' | 'cancelled', message: string | null = null): FeatureRunEvent => ({ ...finished(outcome, message), candidate: 'c2', data: { ...(finished(outcome, message).data as Extract<FeatureRunEvent['data'], { type: 'RunFinished' }>), delivery: null } });
    expect(entryForRunEvent(cand('completed'), 'prj-1')).toMatchObject({ kind: 'finished', title: 'Candidate c2 finished: add-cart', body: 'shop · compare the candidates and pick one', target: { kind: 'feature', slug: 'add-cart' } });
    expect(entryForRunEvent(cand('failed', 'Verification failed after 2 attempts'), 'prj-1')).toMatchObject({ kind: 'failed', title: 'Candidate c2 failed: add-cart', body: 'Verification failed after 2 attempts' });
    expect(entryForRunEvent(cand('cancelled'), 'prj-1')).toBeNull();
  });

  it('an approval waiting in a feature worktree is "needs input"; one in a user session is not', () => {
    const a = { id: 'apr-1', sessionId: 'ses-1', status: 'pending', summary: 'bash: npm publish' } as Approval;
    expect(entryForApproval(a, '/home/me/shop/.trees/add-cart', (p) => (p === '/home/me/shop' ? 'prj-1' : null))).toMatchObject({
      kind: 'needs_input',
      body: 'bash: npm publish',
      target: { kind: 'feature', projectId: 'prj-1', projectPath: '/home/me/shop', slug: 'add-cart' },
    });
    expect(entryForApproval(a, '/home/me/shop', () => 'prj-1')).toBeNull();
    expect(entryForApproval({ ...a, status: 'approved' } as Approval, '/home/me/shop/.trees/add-cart', () => null)).toBeNull();
  });
});

describe('InboxService', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const make = (dir: string, hub = new EventHub()) => {
    const s = new InboxService({ dataDir: dir, hub, logger: silentLogger, sessionRoot: () => '/r/.trees/f', projectIdOf: () => 'prj-1' });
    s.start();
    return { s, hub };
  };

  it('turns published run events and approvals into entries, publishes them, keeps them across a restart, and marks them read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-inbox-'));
    dirs.push(dir);
    const { s, hub } = make(dir);
    const added: string[] = [];
    hub.subscribe((e) => e.topic === 'inbox.added' && added.push((e.payload as { title: string }).title));
    hub.publish('featureRuns.event', finished('failed', 'boom'));
    const approval = { id: 'apr-aaaaaaaa', sessionId: 'ses-aaaaaaaa', turnId: null, toolUseId: 'tool-1', tool: 'bash', input: {}, summary: 'bash: rm x', risk: 'high', status: 'pending', createdAt: 1, resolvedAt: null } as unknown as Approval;
    // Published on every change of the approval: one entry. (Delivered to the listeners directly: the stub is not a whole contract Approval.)
    const listeners = (hub as unknown as { listeners: Set<(e: unknown) => void> }).listeners;
    for (let i = 0; i < 2; i++) for (const l of [...listeners]) l({ topic: 'agents.approvals.changed', key: undefined, payload: { approval } });
    expect(added).toEqual(['Feature failed: add-cart', 'Approval waiting: f']);
    expect(s.list().unread).toBe(2);
    s.dispose();

    const again = make(dir).s;
    expect(again.list().entries.map((e) => e.title)).toEqual(['Approval waiting: f', 'Feature failed: add-cart']);
    const first = again.list().entries[0]!.id;
    expect(again.markRead([first]).unread).toBe(1);
    expect(again.markRead().unread).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'inbox.json'), 'utf8'))).toHaveLength(2);
  });

  it('clears what was answered or resolved: an answered approval, a waiting feature that moved on, failures of a feature that then completed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-inbox-'));
    dirs.push(dir);
    const { s, hub } = make(dir);
    const listeners = (hub as unknown as { listeners: Set<(e: unknown) => void> }).listeners;
    const approval = (status: string) => ({ id: 'apr-bbbbbbbb', sessionId: 'ses-bbbbbbbb', turnId: null, toolUseId: 'tool-1', tool: 'bash', input: {}, summary: 'bash: npm publish', risk: 'high', status, createdAt: 1, resolvedAt: null }) as unknown as Approval;
    const deliver = (a: Approval) => {
      for (const l of [...listeners]) l({ topic: 'agents.approvals.changed', key: undefined, payload: { approval: a } });
    };
    const other = { ...finished('failed', 'other feature'), slug: 'other' };
    hub.publish('featureRuns.event', other);
    hub.publish('featureRuns.event', finished('failed', 'boom', 1));
    hub.publish('featureRuns.event', finished('waiting', 'answer the question', 2));
    deliver(approval('pending'));
    expect(s.list().entries.map((e) => e.kind)).toEqual(['needs_input', 'needs_input', 'failed', 'failed']);
    const changes: number[] = [];
    hub.subscribe((e) => e.topic === 'inbox.changed' && changes.push((e.payload as { unread: number }).unread));
    // The approval is answered: its entry goes, at once, for every window.
    deliver(approval('approved'));
    expect(s.list().entries.map((e) => e.title)).toEqual(['Feature needs you: add-cart', 'Feature failed: add-cart', 'Feature failed: other']);
    expect(changes).toEqual([3]);
    // The feature runs again: its "needs you" was answered; its failure stays until it completes.
    hub.publish('featureRuns.event', { ...finished('completed', null, 3), data: { type: 'PhaseStarting', name: 'dev', index: 0, resumed: true } } as FeatureRunEvent);
    expect(s.list().entries.map((e) => e.title)).toEqual(['Feature failed: add-cart', 'Feature failed: other']);
    hub.publish('featureRuns.event', finished('completed', null, 4));
    expect(s.list().entries.map((e) => e.title)).toEqual(['Feature finished: add-cart', 'Feature failed: other']);
    // Kept so across a restart.
    s.dispose();
    expect(make(dir).s.list().entries.map((e) => e.title)).toEqual(['Feature finished: add-cart', 'Feature failed: other']);
  });

  it('is bounded, and a damaged file starts an empty inbox instead of failing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fd-inbox-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'inbox.json'), '{not json');
    const { s } = make(dir);
    expect(s.list().entries).toEqual([]);
    for (let i = 0; i < MAX_ENTRIES + 5; i++) s.add({ kind: 'finished', title: `t${i}`, body: '', target: null }, i);
    expect(s.list().entries).toHaveLength(MAX_ENTRIES);
    expect(s.list().entries[0]!.title).toBe(`t${MAX_ENTRIES + 4}`);
  });
});

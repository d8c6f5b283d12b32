import type { z } from 'zod';
import { appEvents, appRequests } from './app';
import { projectEvents, projectRequests } from './projects';
import { agentEvents, agentRequests } from './agents';
import { coderEvents, coderRequests } from './coder';
import { terminalEvents, terminalRequests } from './terminals';
import { changeEvents, changeRequests } from './changes';
import { providerRequests } from './providers';
import { folderRequests } from './folders';
import { worktreeEvents, worktreeRequests } from './worktrees';
import { autopilotEvents, autopilotRequests } from './autopilot';
import { sessionWorktreeRequests } from './session-worktrees';
import { featureEvents, featureRequests } from './features';
import { featureRunEvents, featureRunRequests } from './feature-runs';
import { featureCandidateRequests } from './feature-candidates';
import { budgetEvents, budgetRequests } from './budgets';
import { featureReviewRequests } from './feature-review';
import { inboxEvents, inboxRequests } from './inbox';
import { mailboxEvents, mailboxRequests } from './mailbox';
import { containerEvents, containerRequests } from './containers';
import { trustEvents, trustRequests } from './trust';
import { mcpEvents, mcpRequests } from './mcp';
import { issueRequests } from './issues';
import { reviewCommentRequests } from './review-comments';
import { pullRequestEvents, pullRequestRequests } from './pull-requests';
import type { EventSpec, RequestSpec } from './define';

export * from './errors';
export * from './units';
export * from './define';
export * from './app';
export * from './projects';
export * from './terminals';
export * from './agents';
export * from './coder';
export * from './changes';
export * from './providers';
export * from './folders';
export * from './worktrees';
export * from './autopilot';
export * from './session-worktrees';
export * from './features';
export * from './feature-runs';
export * from './feature-candidates';
export * from './budgets';
export * from './containers';
export * from './mailbox';
export * from './feature-review';
export * from './inbox';
export * from './trust';
export * from './mcp';
export * from './issues';
export * from './review-comments';
export * from './pull-requests';

/**
 * The whole bridge. No channel exists outside this object: main registers a handler for
 * each request, validates every payload against it, and the renderer's client is typed from it.
 * Capabilities add their own `xxxRequests` / `xxxEvents` modules and spread them here.
 */
export const requests = {
  ...appRequests,
  ...projectRequests,
  ...terminalRequests,
  ...agentRequests,
  ...coderRequests,
  ...changeRequests,
  ...providerRequests,
  ...folderRequests,
  ...worktreeRequests,
  ...autopilotRequests,
  ...sessionWorktreeRequests,
  ...featureRequests,
  ...featureRunRequests,
  ...featureCandidateRequests,
  ...budgetRequests,
  ...containerRequests,
  ...mailboxRequests,
  ...featureReviewRequests,
  ...inboxRequests,
  ...trustRequests,
  ...mcpRequests,
  ...issueRequests,
  ...reviewCommentRequests,
  ...pullRequestRequests,
} as const satisfies Record<string, RequestSpec>;

export const events = {
  ...appEvents,
  ...projectEvents,
  ...terminalEvents,
  ...agentEvents,
  ...coderEvents,
  ...changeEvents,
  ...autopilotEvents,
  ...featureEvents,
  ...featureRunEvents,
  ...budgetEvents,
  ...containerEvents,
  ...mailboxEvents,
  ...inboxEvents,
  ...trustEvents,
  ...mcpEvents,
  ...pullRequestEvents,
  ...worktreeEvents,
} as const satisfies Record<string, EventSpec>;

export type Requests = typeof requests;
export type Events = typeof events;
export type Channel = keyof Requests;
export type Topic = keyof Events;
export type InputOf<C extends Channel> = z.input<Requests[C]['input']>;
export type ParsedInputOf<C extends Channel> = z.output<Requests[C]['input']>;
export type OutputOf<C extends Channel> = z.output<Requests[C]['output']>;
export type PayloadOf<T extends Topic> = z.output<Events[T]['payload']>;

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(requests, name);
}
export function isTopic(name: unknown): name is Topic {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);
}

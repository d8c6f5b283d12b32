/**
 * The inbox: what happened while the user looked elsewhere — a feature finished, failed or
 * waits for an answer, an agent of a feature asks for approval, a budget warns. Each entry
 * opens what it is about. Desktop notifications are made from the same entries.
 */
import { z } from 'zod';
import { event, request } from './define';

export const InboxTarget = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('feature'), projectId: z.string().nullable(), projectPath: z.string(), slug: z.string() }),
  z.object({ kind: z.literal('session'), sessionId: z.string() }),
]);
export type InboxTarget = z.infer<typeof InboxTarget>;

export const InboxEntry = z.object({
  id: z.string(),
  ts: z.number().int(),
  kind: z.enum(['finished', 'failed', 'needs_input', 'budget']),
  title: z.string(),
  body: z.string(),
  target: InboxTarget.nullable(),
  read: z.boolean(),
  /** The approval a "needs input" entry asks about: the entry goes once it is answered. */
  approvalId: z.string().max(100).optional(),
});
export type InboxEntry = z.infer<typeof InboxEntry>;

export const inboxRequests = {
  'inbox.list': request(z.object({}).strict(), z.object({ entries: z.array(InboxEntry), unread: z.number().int().nonnegative() }), 'The inbox, newest first.'),
  'inbox.markRead': request(z.object({ ids: z.array(z.string().max(100)).max(500).optional() }).strict(), z.object({ unread: z.number().int().nonnegative() }), 'Mark entries read (all when no ids are given).'),
} as const;

export const inboxEvents = {
  'inbox.added': event(InboxEntry, 'A new inbox entry (the renderer may show a notification for it).'),
  'inbox.changed': event(z.object({ unread: z.number().int().nonnegative() }), 'Entries were added or read.'),
  'inbox.open': event(InboxEntry, "The user clicked an entry's desktop notification: the window shows what it is about."),
} as const;

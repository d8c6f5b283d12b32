import { AgentEventData, AppError, ImageAttachment } from '../../src-preload/contract';
import type { Router } from '../bridge/router';
import type { AgentService } from './agent-service';
import { toContractMessage } from './store/message-repo';
import { suggestFiles } from './session-files';
import { RecentSubmits } from './recent-submits';

/** Suggestions shown for an @ mention: a screenful. */
const MENTION_SUGGESTIONS = 12;

/**
 * A read of the newest turns only (`lastTurns`) starts at 1 anyway unless it skips at least this
 * many events: reading and showing 500 more events costs a few milliseconds, a second round trip as much.
 */
const TAIL_READ_MIN_SKIPPED_EVENTS = 500;

export function registerAgentHandlers(router: Router, agents: AgentService): void {
  const submits = new RecentSubmits<ReturnType<AgentService['submit']>>();
  router.handle('agents.sessions.list', ({ projectId }) => agents.listSessions(projectId));
  router.handle('agents.sessions.get', ({ sessionId }) => agents.getSession(sessionId));
  router.handle('agents.sessions.create', (input) => agents.createSession(input));
  router.handle('agents.sessions.update', (input) => agents.updateSession(input));
  router.handle('agents.sessions.remove', ({ sessionId }) => ({ removed: agents.removeSession(sessionId) }));
  router.handle('agents.files.suggest', ({ sessionId, query, limit }) => suggestFiles(agents.getSession(sessionId).root, query, limit ?? MENTION_SUGGESTIONS));
  router.handle('agents.messages.list', ({ sessionId }) => {
    agents.getSession(sessionId);
    return agents.messages.live(sessionId).map(toContractMessage);
  });
  router.handle('agents.events.read', ({ sessionId, fromSeq, limit, lastTurns }) => {
    agents.getSession(sessionId);
    const startSeq = lastTurns === undefined ? fromSeq : agents.sink.tailStart(sessionId, lastTurns, TAIL_READ_MIN_SKIPPED_EVENTS);
    const page = agents.sink.readPage(sessionId, startSeq, limit);
    // Events written by an older version that no longer fit the contract are skipped, not fatal:
    // a page may hold fewer events than it read rows (more and nextSeq say where to go on).
    const events = page.events.filter((e) => AgentEventData.safeParse(e.data).success);
    return { events, lastSeq: agents.sink.lastSeq(sessionId), startSeq, nextSeq: page.nextSeq, more: page.more };
  });
  router.handle('agents.images.get', ({ sessionId, turnId, index }) => {
    agents.getSession(sessionId);
    const block = agents.messages.inputImages(sessionId, turnId)[index];
    // Checked again on the way out: only an allowed image type and base64 ever reach an <img>.
    const image = block ? ImageAttachment.safeParse({ mediaType: block.source.media_type, data: block.source.data }) : null;
    if (!image?.success) throw new AppError('not_found', 'That turn has no such image.');
    return image.data;
  });
  router.handle('agents.input', ({ sessionId, input, images }) => {
    if (input.trim() === '') throw new AppError('invalid_input', 'Type a message, a !command or a /command.');
    return agents.input(sessionId, input, images ?? []);
  });
  router.handle('agents.submit', ({ sessionId, input, images, inputId }) => {
    if (input.trim() === '') throw new AppError('invalid_input', 'Type a message, a !command or a /command.');
    const earlier = inputId === undefined ? undefined : submits.get(sessionId, inputId);
    if (earlier) return earlier;
    const answer = agents.submit(sessionId, input, images ?? []);
    if (inputId !== undefined) submits.remember(sessionId, inputId, answer);
    return answer;
  });
  router.handle('agents.queue.remove', ({ sessionId, queuedId }) => ({ removed: agents.removeQueued(sessionId, queuedId) }));
  router.handle('agents.queue.resume', ({ sessionId }) => ({ started: agents.resumeQueue(sessionId) }));
  router.handle('agents.cancel', ({ sessionId }) => ({ cancelled: agents.cancel(sessionId) }));
  router.handle('agents.approvals.list', ({ sessionId }) => agents.gate.pending(sessionId));
  router.handle('agents.approvals.answer', ({ approvalId, decision, reason }) => agents.gate.answer(approvalId, decision, reason));
  router.handle('agents.rules.list', ({ sessionId }) => {
    agents.getSession(sessionId);
    return agents.gate.rules(sessionId);
  });
  router.handle('agents.rules.remove', ({ sessionId, rule }) => {
    agents.getSession(sessionId);
    return { removed: agents.gate.removeRule(sessionId, rule) };
  });
  router.handle('agents.cost.get', ({ sessionId }) => {
    agents.getSession(sessionId);
    return agents.costs.summary(sessionId);
  });
  router.handle('agents.profiles.list', () => agents.profiles.list());
  router.handle('agents.profiles.save', (input) => {
    const p = agents.profiles.save(input);
    agents.publishProfiles();
    return p;
  });
  router.handle('agents.profiles.remove', ({ name }) => {
    const removed = agents.profiles.remove(name);
    if (removed) agents.publishProfiles();
    return { removed };
  });
  router.handle('agents.settings.get', () => agents.settings());
  router.handle('agents.settings.update', (patch) => agents.updateSettings(patch));
  router.handle('agents.config.get', ({ sessionId }) => agents.effectiveConfig(sessionId));
}

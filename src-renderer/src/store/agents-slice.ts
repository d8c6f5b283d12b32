import type { SliceCreator } from '.';
import { emptyQueue, nextToSend, queueReducer, type QueueAction, type SessionQueue } from '../agents/composer-logic';
import type {
  AgentSettings,
  Approval,
  ApprovalDecision,
  ImageAttachment,
  ProviderProfile,
  ProviderProfileInput,
  Session,
} from '../../../src-preload/contract/agents';

type SessionPatch = { title?: string; mode?: Session['mode']; profile?: string; model?: string; policyPreset?: Session['policyPreset']; sandbox?: Session['sandbox']; archived?: boolean };

export interface AgentsSlice {
  sessions: Session[];
  sessionsLoaded: boolean;
  /** Pending approvals of every session, oldest first. */
  approvals: Approval[];
  /** Pending approvals the user put off with "Later": the dialog skips them until asked again. */
  snoozedApprovals: ReadonlySet<string>;
  /** An approval the user asked to see (badge, card, session list): the dialog shows it first. */
  reviewingApproval: string | null;
  profiles: ProviderProfile[];
  agentSettings: AgentSettings | null;
  loadAgents(): Promise<void>;
  upsertSession(session: Session | null, removedId: string | null): void;
  upsertApproval(approval: Approval): void;
  snoozeApproval(approvalId: string): void;
  /** Brings a pending approval back into the dialog: the given one, or the oldest of a session. */
  reviewApproval(target: { approvalId: string } | { sessionId: string }): void;
  setProfiles(profiles: ProviderProfile[]): void;
  setAgentSettings(settings: AgentSettings): void;
  createSession(opts: { projectId: string; title?: string }): Promise<Session | null>;
  updateSession(sessionId: string, patch: SessionPatch): Promise<void>;
  removeSession(sessionId: string): Promise<void>;
  /** Sends chat, `!command` or `/command`; false when the engine refused it (shown as a toast). */
  sendInput(sessionId: string, input: string, images?: readonly ImageAttachment[]): Promise<boolean>;
  cancelTurn(sessionId: string): Promise<void>;
  /**
   * Messages typed while a turn runs, per session, sent one by one as turns end. Kept in the
   * renderer (and the tab's sessionStorage): switching views and reloading keep them; another
   * window does not see them.
   */
  composerQueues: Readonly<Record<string, SessionQueue>>;
  queueInput(sessionId: string, text: string, images?: readonly ImageAttachment[]): void;
  removeQueued(sessionId: string, id: string): void;
  /** Sends the next queued message if the session can take it (also after an interruption paused the queue). */
  flushQueue(sessionId: string, opts?: { resume?: boolean }): Promise<void>;
  answerApproval(approvalId: string, decision: ApprovalDecision, reason?: string): Promise<boolean>;
  saveProfile(input: ProviderProfileInput): Promise<ProviderProfile>;
  removeProfile(name: string): Promise<void>;
  updateAgentSettings(patch: Partial<AgentSettings>): Promise<void>;
}

const byUpdated = (a: Session, b: Session) => b.updatedAt - a.updatedAt;

/** Sessions whose queued message is being handed to the engine: one at a time, never twice. */
const flushing = new Set<string>();
let queuedSeq = 0;

/**
 * Queued messages are kept in the tab's sessionStorage, so reloading the page keeps them (a
 * new tab or window starts without them: they were typed here).
 */
const QUEUE_STORAGE_KEY = 'flightdeck.composerQueues';

function loadQueues(): Record<string, SessionQueue> {
  try {
    const raw = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(QUEUE_STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (!parsed || typeof parsed !== 'object') return {};
    const out: Record<string, SessionQueue> = {};
    for (const [id, q] of Object.entries(parsed as Record<string, SessionQueue>)) {
      if (q && Array.isArray(q.items) && q.items.every((x) => typeof x?.id === 'string' && typeof x.text === 'string')) out[id] = { items: q.items, paused: q.paused === true };
    }
    return out;
  } catch {
    // Unreadable (storage blocked, damaged by hand): start with no queue, as a new tab would.
    return {};
  }
}

function saveQueues(queues: Readonly<Record<string, SessionQueue>>): void {
  try {
    if (typeof sessionStorage === 'undefined') return;
    const kept = Object.fromEntries(Object.entries(queues).filter(([, q]) => q.items.length > 0));
    if (Object.keys(kept).length === 0) sessionStorage.removeItem(QUEUE_STORAGE_KEY);
    else sessionStorage.setItem(QUEUE_STORAGE_KEY, JSON.stringify(kept));
  } catch {
    // Over the storage quota (large images) or blocked: the queue still works, it just does not survive a reload.
  }
}

function dispatchQueue(set: Parameters<SliceCreator<AgentsSlice>>[0], get: Parameters<SliceCreator<AgentsSlice>>[1], sessionId: string, action: QueueAction): void {
  set((s) => {
    const before = s.composerQueues[sessionId] ?? emptyQueue;
    const after = queueReducer(before, action);
    return after === before ? {} : { composerQueues: { ...s.composerQueues, [sessionId]: after } };
  });
  saveQueues(get().composerQueues);
}

export const createAgentsSlice: SliceCreator<AgentsSlice> = (set, get, client) => ({
  sessions: [],
  sessionsLoaded: false,
  approvals: [],
  snoozedApprovals: new Set(),
  reviewingApproval: null,
  profiles: [],
  agentSettings: null,
  composerQueues: loadQueues(),

  async loadAgents() {
    const [sessions, approvals, profiles, agentSettings] = await Promise.allSettled([
      client.invoke('agents.sessions.list', {}),
      client.invoke('agents.approvals.list', {}),
      client.invoke('agents.profiles.list', {}),
      client.invoke('agents.settings.get', {}),
    ]);
    set({
      sessions: sessions.status === 'fulfilled' ? sessions.value.slice().sort(byUpdated) : get().sessions,
      sessionsLoaded: true,
      approvals: approvals.status === 'fulfilled' ? approvals.value.filter((a) => a.status === 'pending') : get().approvals,
      profiles: profiles.status === 'fulfilled' ? profiles.value : get().profiles,
      agentSettings: agentSettings.status === 'fulfilled' ? agentSettings.value : get().agentSettings,
    });
    // Messages queued before a reload whose turn ended meanwhile go now (the end was not seen here).
    for (const id of Object.keys(get().composerQueues)) void get().flushQueue(id);
  },

  upsertSession(session, removedId) {
    const before = session ? get().sessions.find((x) => x.id === session.id) : undefined;
    const turnEnded = !!session && !!before && before.status !== 'idle' && session.status === 'idle';
    // A turn that just ended may have changed files: the board's git figures must not lag behind.
    if (turnEnded && session.projectId) void get().refreshProjects(session.projectId);
    set((s) => {
      let sessions = s.sessions;
      if (removedId) sessions = sessions.filter((x) => x.id !== removedId);
      if (session) sessions = [session, ...sessions.filter((x) => x.id !== session.id)].sort(byUpdated);
      return { sessions, approvals: removedId ? s.approvals.filter((a) => a.sessionId !== removedId) : s.approvals };
    });
    // The turn ended: the next queued message goes now.
    if (turnEnded) void get().flushQueue(session.id);
  },

  upsertApproval(approval) {
    set((s) => {
      const rest = s.approvals.filter((a) => a.id !== approval.id);
      if (approval.status === 'pending') return { approvals: [...rest, approval].sort((a, b) => a.createdAt - b.createdAt) };
      const snoozed = new Set(s.snoozedApprovals);
      snoozed.delete(approval.id);
      return { approvals: rest, snoozedApprovals: snoozed, reviewingApproval: s.reviewingApproval === approval.id ? null : s.reviewingApproval };
    });
  },

  snoozeApproval(approvalId) {
    set((s) => ({ snoozedApprovals: new Set(s.snoozedApprovals).add(approvalId), reviewingApproval: s.reviewingApproval === approvalId ? null : s.reviewingApproval }));
  },

  reviewApproval(target) {
    const id = 'approvalId' in target ? target.approvalId : get().approvals.find((a) => a.sessionId === target.sessionId)?.id;
    if (!id) return;
    set((s) => {
      const snoozed = new Set(s.snoozedApprovals);
      snoozed.delete(id);
      return { snoozedApprovals: snoozed, reviewingApproval: id };
    });
  },

  setProfiles: (profiles) => set({ profiles }),
  setAgentSettings: (agentSettings) => set({ agentSettings }),

  async createSession({ projectId, title }) {
    try {
      const session = await client.invoke('agents.sessions.create', { projectId, ...(title ? { title } : {}) });
      get().upsertSession(session, null);
      return session;
    } catch (e) {
      get().toastError('Could not start a session', e);
      return null;
    }
  },

  async updateSession(sessionId, patch) {
    try {
      get().upsertSession(await client.invoke('agents.sessions.update', { sessionId, ...patch }), null);
    } catch (e) {
      get().toastError('Could not change the session', e);
    }
  },

  async removeSession(sessionId) {
    try {
      await client.invoke('agents.sessions.remove', { sessionId });
      get().upsertSession(null, sessionId);
      const v = get().view;
      if (v.name === 'session' && v.sessionId === sessionId) get().setView({ name: 'board' });
    } catch (e) {
      get().toastError('Could not delete the session', e);
    }
  },

  async sendInput(sessionId, input, images) {
    try {
      await client.invoke('agents.input', { sessionId, input, ...(images && images.length > 0 ? { images: [...images] } : {}) });
      return true;
    } catch (e) {
      get().toastError('Could not send', e);
      return false;
    }
  },

  async cancelTurn(sessionId) {
    // An interrupted turn is a change of plan: queued messages wait for the user instead of going on their own.
    dispatchQueue(set, get, sessionId, { type: 'pause' });
    try {
      await client.invoke('agents.cancel', { sessionId });
    } catch (e) {
      get().toastError('Could not stop the turn', e);
    }
  },

  queueInput(sessionId, text, images) {
    dispatchQueue(set, get, sessionId, { type: 'add', item: { id: `q${Date.now().toString(36)}-${++queuedSeq}`, text, ...(images && images.length > 0 ? { images } : {}) } });
    // The turn may have ended between the click and now: nothing else would start the queue then.
    if (get().sessions.find((x) => x.id === sessionId)?.status === 'idle') void get().flushQueue(sessionId);
  },

  removeQueued(sessionId, id) {
    dispatchQueue(set, get, sessionId, { type: 'remove', id });
  },

  async flushQueue(sessionId, opts) {
    if (flushing.has(sessionId)) return;
    if (opts?.resume) dispatchQueue(set, get, sessionId, { type: 'resume' });
    const idle = get().sessions.find((x) => x.id === sessionId)?.status === 'idle';
    const next = nextToSend(get().composerQueues[sessionId] ?? emptyQueue, idle);
    if (!next) return;
    flushing.add(sessionId);
    dispatchQueue(set, get, sessionId, { type: 'shift' });
    try {
      if (!(await get().sendInput(sessionId, next.text, next.images))) {
        // Refused (shown as a toast): it stays queued, held until the user sends or removes it.
        dispatchQueue(set, get, sessionId, { type: 'unshift', item: next });
        dispatchQueue(set, get, sessionId, { type: 'pause' });
      }
    } finally {
      flushing.delete(sessionId);
    }
  },

  async answerApproval(approvalId, decision, reason) {
    try {
      const a = await client.invoke('agents.approvals.answer', { approvalId, decision, ...(reason ? { reason } : {}) });
      get().upsertApproval(a);
      return true;
    } catch (e) {
      get().toastError('Could not answer the approval', e);
      return false;
    }
  },

  async saveProfile(input) {
    const p = await client.invoke('agents.profiles.save', input);
    set({ profiles: await client.invoke('agents.profiles.list', {}) });
    return p;
  },

  async removeProfile(name) {
    try {
      await client.invoke('agents.profiles.remove', { name });
      set((s) => ({ profiles: s.profiles.filter((p) => p.name !== name) }));
    } catch (e) {
      get().toastError('Could not remove the profile', e);
    }
  },

  async updateAgentSettings(patch) {
    try {
      set({ agentSettings: await client.invoke('agents.settings.update', patch) });
    } catch (e) {
      get().toastError('Could not save agent settings', e);
    }
  },
});

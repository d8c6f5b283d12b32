import type { SliceCreator } from '.';
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
  /**
   * Sends chat, `!command` or `/command`: the main process starts a turn or queues it behind
   * the running one (its queue is on the session record). False when it was refused (shown as
   * a toast): the caller keeps the text.
   */
  sendInput(sessionId: string, input: string, images?: readonly ImageAttachment[]): Promise<boolean>;
  cancelTurn(sessionId: string): Promise<void>;
  removeQueued(sessionId: string, queuedId: string): Promise<void>;
  /** Releases a queue held after an interruption: the first message goes now if no turn runs. */
  resumeQueue(sessionId: string): Promise<void>;
  answerApproval(approvalId: string, decision: ApprovalDecision, reason?: string): Promise<boolean>;
  saveProfile(input: ProviderProfileInput): Promise<ProviderProfile>;
  removeProfile(name: string): Promise<void>;
  updateAgentSettings(patch: Partial<AgentSettings>): Promise<void>;
}

const byUpdated = (a: Session, b: Session) => b.updatedAt - a.updatedAt;

/** Inputs whose send failed, by session, images and text: their id, for the same message sent again soon. */
const unanswered = new Map<string, { id: string; at: number }>();
const MAX_UNANSWERED = 50;
/** As long as the host remembers an answer (RECENT_SUBMIT_TTL_MS in src-main/agents/recent-submits.ts). */
const RESEND_WINDOW_MS = 2 * 60_000;

/** Tells attached images apart without hashing megabytes: count, sizes and the ends of each. */
function imagesPrint(images: readonly ImageAttachment[] | undefined): string {
  return (images ?? []).map((i) => `${i.mediaType}:${i.data.length}:${i.data.slice(0, 32)}:${i.data.slice(-32)}`).join('|');
}

function newInputId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Earlier versions queued messages in the tab's sessionStorage; a page reloaded into this
 * version hands them to the main process once, so nothing typed before the update is lost.
 */
const LEGACY_QUEUE_STORAGE_KEY = 'flightdeck.composerQueues';

type LegacyItem = { sessionId: string; text: string; images?: ImageAttachment[] };

/** The legacy queues still in this tab's storage (left there until handed over). */
function readLegacyQueues(): LegacyItem[] {
  try {
    if (typeof sessionStorage === 'undefined') return [];
    const raw = sessionStorage.getItem(LEGACY_QUEUE_STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (!parsed || typeof parsed !== 'object') return [];
    const out: LegacyItem[] = [];
    for (const [sessionId, q] of Object.entries(parsed as Record<string, { items?: unknown }>)) {
      if (!q || !Array.isArray(q.items)) continue;
      for (const x of q.items as Array<{ text?: unknown; images?: ImageAttachment[] }>) {
        if (typeof x?.text === 'string' && x.text.trim()) out.push({ sessionId, text: x.text, ...(Array.isArray(x.images) && x.images.length > 0 ? { images: x.images } : {}) });
      }
    }
    return out;
  } catch {
    // Unreadable (storage blocked, damaged by hand): there is nothing left to hand over.
    return [];
  }
}

/** What is left of the legacy queues after a hand-over: written back, or removed when nothing is. */
function keepLegacyQueues(left: readonly LegacyItem[]): void {
  try {
    if (left.length === 0) return sessionStorage.removeItem(LEGACY_QUEUE_STORAGE_KEY);
    const bySession: Record<string, { items: Array<{ text: string; images?: ImageAttachment[] }> }> = {};
    for (const { sessionId, ...item } of left) (bySession[sessionId] ??= { items: [] }).items.push(item);
    sessionStorage.setItem(LEGACY_QUEUE_STORAGE_KEY, JSON.stringify(bySession));
  } catch {
    // Storage blocked: nothing more can be kept there.
  }
}

export const createAgentsSlice: SliceCreator<AgentsSlice> = (set, get, client) => ({
  sessions: [],
  sessionsLoaded: false,
  approvals: [],
  snoozedApprovals: new Set(),
  reviewingApproval: null,
  profiles: [],
  agentSettings: null,

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
    // Handed over only once the sessions are known: an item stays in storage until it was taken,
    // or its session is known to be gone; one that could not be sent waits for the next load.
    const legacy = readLegacyQueues();
    if (legacy.length > 0 && sessions.status === 'fulfilled') {
      const left: LegacyItem[] = [];
      for (const q of legacy) {
        if (!get().sessions.some((x) => x.id === q.sessionId)) continue;
        if (!(await get().sendInput(q.sessionId, q.text, q.images))) left.push(q);
      }
      keepLegacyQueues(left);
    }
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
    // The same message sent again after a failure carries the same id: if the host did take it
    // (the answer was lost with the connection), it is answered as before instead of run twice.
    const key = `${sessionId}\u0000${imagesPrint(images)}\u0000${input}`;
    const earlier = unanswered.get(key);
    // Only a resend soon after the failure is the same message; later, the same words are a new one.
    const inputId = earlier && Date.now() - earlier.at < RESEND_WINDOW_MS ? earlier.id : newInputId();
    unanswered.delete(key);
    try {
      await client.invoke('agents.submit', { sessionId, input, inputId, ...(images && images.length > 0 ? { images: [...images] } : {}) });
      return true;
    } catch (e) {
      unanswered.set(key, { id: inputId, at: Date.now() });
      while (unanswered.size > MAX_UNANSWERED) unanswered.delete(unanswered.keys().next().value!);
      get().toastError('Could not send', e);
      return false;
    }
  },

  async cancelTurn(sessionId) {
    try {
      await client.invoke('agents.cancel', { sessionId });
    } catch (e) {
      get().toastError('Could not stop the turn', e);
    }
  },

  async removeQueued(sessionId, queuedId) {
    try {
      await client.invoke('agents.queue.remove', { sessionId, queuedId });
    } catch (e) {
      get().toastError('Could not remove the queued message', e);
    }
  },

  async resumeQueue(sessionId) {
    try {
      await client.invoke('agents.queue.resume', { sessionId });
    } catch (e) {
      get().toastError('Could not send the queued message', e);
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

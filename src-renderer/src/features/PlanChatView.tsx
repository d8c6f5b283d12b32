import { useContext, useState } from 'react';
import type { ImageAttachment } from '../../../src-preload/contract/agents';
import { Missing } from '../components/Missing';
import { Icon } from '../components/Icon';
import { SessionView } from '../agents/SessionView';
import { StoreContext, useAppStore, useClient, type AppState } from '../store';
import { PlanHeader } from './PlanHeader';
import { usePlanDraft } from './use-plan-draft';
import './features.css';

/** What the composer takes as "write the plan now" (the planning chat's command). */
const APPROVE_COMMAND = /^\/approve\s*$/i;

/**
 * Planning a feature: the chat with the Planner is an ordinary agent session (streamed, tool
 * cards, approvals as anywhere else; messages with images go to it directly); `/approve` — typed or the button — has the Planner write
 * the design spec and the verification plan, then opens the approval screen.
 */
export function PlanChatView({ draftId }: { draftId: string }) {
  const client = useClient();
  const store = useContext(StoreContext)!;
  const { data, error } = usePlanDraft(draftId);
  const session = useAppStore((s) => (data ? s.sessions.find((x) => x.id === data.draft.sessionId) : undefined));
  const sendInput = useAppStore((s) => s.sendInput);
  const upsertDraft = useAppStore((s) => s.upsertDraft);
  const setView = useAppStore((s) => s.setView);
  const toastError = useAppStore((s) => s.toastError);
  const toast = useAppStore((s) => s.toast);
  const [writing, setWriting] = useState(false);

  if (!data) return error ? <Missing what="Plan" loaded verb="discarded" /> : <p className="muted center">Loading the plan…</p>;
  const { draft } = data;
  const busy = writing || draft.status === 'generating';
  const chatRunning = session?.status === 'running' || session?.status === 'awaiting_approval';
  const closed = draft.status === 'approved' || draft.status === 'discarded';

  const writePlan = async () => {
    setWriting(true);
    try {
      const r = await client.invoke('features.plan.approveDraft', { draftId });
      upsertDraft(r.draft);
      setView({ name: 'plan', draftId, screen: 'review' });
    } catch (e) {
      toastError('The Planner could not write the plan', e);
    } finally {
      setWriting(false);
    }
  };

  const onSend = async (text: string, images: readonly ImageAttachment[]): Promise<boolean> => {
    // The plan takes one thing at a time (its chat turns, the writing of a revision): what is
    // sent meanwhile is refused, so it stays in the box, said so, to send once the Planner is done.
    const wait = closed ? `This plan was ${draft.status}: nothing more goes to its Planner.` : busy ? 'The Planner is writing the plan. Your message stays in the box; send it once the plan is written.' : chatRunning ? 'The Planner is still answering. Your message stays in the box; send it once the answer is done.' : null;
    if (wait !== null) {
      toast({ level: 'info', title: 'Not sent yet', message: wait });
      return false;
    }
    if (APPROVE_COMMAND.test(text.trim())) {
      void writePlan();
      return true;
    }
    if (images.length > 0) return sendInput(draft.sessionId, text, images);
    // Through the plan, not straight to the session: the plan orders its chat turns and the
    // writing of a revision one after the other. The answer streams into the transcript; the
    // call itself returns only when the turn ends, so the box is cleared once the turn has
    // started (or the call answered), and a refusal before that leaves the text in it.
    const turnsBefore = session?.turnCount ?? 0;
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (sent: boolean) => {
        if (settled) return;
        settled = true;
        stopWatching();
        resolve(sent);
      };
      const started = (s: AppState) => {
        const x = s.sessions.find((y) => y.id === draft.sessionId);
        return x !== undefined && (x.status === 'running' || x.status === 'awaiting_approval' || x.turnCount > turnsBefore);
      };
      const stopWatching = store.subscribe((s) => started(s) && settle(true));
      client.invoke('features.plan.send', { draftId, message: text }).then(
        () => settle(true),
        (e: unknown) => {
          toastError('The Planner did not answer', e);
          settle(false);
        },
      );
    });
  };

  return (
    <div className="plan-screen plan-chat" data-testid="plan-chat">
      <PlanHeader draft={draft} screen="chat" />
      <div className="plan-chat-bar">
        <p className="muted small">
          {busy
            ? 'The Planner is writing the design spec and the verification plan from this conversation…'
            : closed
              ? `This plan was ${draft.status}.`
              : 'Describe the feature and answer the Planner’s questions. When the design is settled, approve it to have the plan written for review.'}
        </p>
        <div className="plan-chat-actions">
          {draft.revision !== null && !closed && (
            <button className="button" onClick={() => setView({ name: 'plan', draftId, screen: 'review' })} data-testid="plan-open-review">
              Review revision {draft.revision}
            </button>
          )}
          {!closed && (
            <button
              className="button primary"
              onClick={() => void writePlan()}
              disabled={busy || chatRunning || session?.turnCount === 0}
              title={session?.turnCount === 0 ? 'Discuss the feature with the Planner first' : chatRunning ? 'Wait for the Planner to finish its answer' : undefined}
              data-testid="plan-approve-command"
            >
              {busy ? <Icon name="refresh" className="spin" /> : <Icon name="check" />} {busy ? 'Writing the plan…' : draft.revision === null ? '/approve — write the plan' : '/approve — write it again from the chat'}
            </button>
          )}
        </div>
      </div>
      <SessionView key={draft.sessionId} sessionId={draft.sessionId} onSend={onSend} />
    </div>
  );
}

/**
 * The mailbox's way into the agent engine: sessions are created and driven through the
 * SessionDriver like every other capability's, and live events come from the event hub (they
 * are published after they are persisted).
 */
import type { AgentEvent, AgentMode } from '../../src-preload/contract';
import { AppError } from '../../src-preload/contract/errors';
import type { EventHub } from '../bridge/event-hub';
import type { SessionDriver } from '../agents/session-driver';
import type { MailboxAgentPort } from './processor';

/**
 * Nobody is there to answer an approval dialog for a dropped command file, so mailbox sessions
 * run in yolo (the format's `bypassPermissions`): commands still run in the OS sandbox and the
 * hard floor still refuses destructive ones.
 */
export const MAILBOX_AGENT_MODE: AgentMode = 'yolo';

const ENGINES: Record<string, 'builtin' | 'claude-code'> = { builtin: 'builtin', 'claude-code': 'claude-code', claude: 'claude-code' };

export function driverAgentPort(o: { driver: SessionDriver; hub: EventHub; mode?: AgentMode; profile?: string }): MailboxAgentPort {
  return {
    createSession({ workspace, title, engine }) {
      const executor = engine === undefined ? 'builtin' : ENGINES[engine.toLowerCase()];
      if (!executor) throw new AppError('invalid_input', `engine ${JSON.stringify(engine)} is not an agent engine Flightdeck has; use builtin or claude-code.`);
      // No projectId: the engine derives it from the folder, and a project id would put the session in the project's own folder instead of the workspace.
      return o.driver.createSession({ root: workspace, role: 'coder', executor, mode: o.mode ?? MAILBOX_AGENT_MODE, title, ...(o.profile ? { profile: o.profile } : {}) }).id;
    },
    async runTurn(sessionId, input, { signal, instructions }) {
      const r = await o.driver.runTurn(sessionId, input, { signal, instructions });
      return { ...r, toolCalls: r.toolCalls.map((c) => ({ tool: c.tool, input: c.input, output: c.output, isError: c.isError })) };
    },
    subscribe(listener) {
      return o.hub.subscribe((e) => {
        if (e.topic === 'agents.event') listener(e.payload as AgentEvent);
      });
    },
  };
}

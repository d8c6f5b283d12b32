/**
 * The Claude Code executor as an app service: detection of the CLI, its settings, which
 * sessions it runs, and the hooks the agent engine calls for those sessions' input.
 */
import { join } from 'node:path';
import { AppError, CoderSettings, type ClaudeDetection, type CoderSessionConfig, type ConstraintsInfo, type Executor } from '../../src-preload/contract';
import type { AgentService } from '../agents/agent-service';
import type { TurnEnd } from '../agents/orchestrator/run-turn';
import type { TurnContext } from '../agents/orchestrator/turn-context';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import type { SettingsService } from '../settings/settings-service';
import type { Database } from '../store/db';
import { CONSTRAINT_FILES, type ConstraintName } from './core/prompt';
import { loadConstraints, readContract } from './constraints';
import { detectClaude } from './detect';
import { liveRuns } from './process-group';
import { removeStaleRunDirs } from './run-dir';
import { CoderSessionRepo, type CoderSessionRecord } from './session-repo';
import { runClaudeCodeTurn } from './session-turn';
import { authModeFor } from './session-turn';
import { withRelativePaths } from './core/tool-map';
import { coderToolSpec, runCoderTool, type CoderToolOutcome } from './plan-tool';
import { sessionSandboxPolicy, type HiddenPath } from '../sandbox/policy';

const SETTINGS_KEY = 'coder.settings';
/** Seed 000's defaults: 5 minutes of silence, 30 minutes in all. */
export const DEFAULT_CODER_SETTINGS: CoderSettings = { claudePath: null, idleTimeoutS: 300, maxDurationS: 1_800 };
/** A detection older than this is redone before a run (the user may have installed claude meanwhile). */
const DETECTION_TTL_MS = 60_000;

export interface CoderServiceOptions {
  db: Database;
  hub: EventHub;
  settings: SettingsService;
  agents: AgentService;
  logger: Logger;
  /** Tests: environment overrides for every CLI run (HOME, CLAUDE_CODE_MAX_RETRIES…). */
  envOverrides?: Readonly<Record<string, string | undefined>>;
  killGraceMs?: number;
  /** Flightdeck's data folder: hidden from Claude Code's Bash (stored keys, the database). */
  dataDir?: string;
}

export type TurnRunner = (ctx: TurnContext, input: string) => Promise<TurnEnd>;

export class CoderService {
  /**
   * For a session placed in a container (the containers service): how to start `claude` there
   * (a host launcher taking the CLI's arguments, and its environment). Null = on the host.
   * Never a silent fallback: when the container cannot start, the turn fails with the reason.
   */
  placementLaunch: ((sessionId: string) => (() => Promise<{ path: string; env: Record<string, string> }>) | null) | null = null;
  /** The MCP servers a session of this project uses, as Claude Code's `--mcp-config` content (set by the MCP capability). */
  mcpConfig: ((projectId: string | null) => { mcpServers: Record<string, Record<string, unknown>> }) | null = null;
  /** An MCP tool's result with its server's secrets hidden (set by the MCP capability). */
  mcpRedact: ((tool: string, text: string) => string) | null = null;
  readonly repo: CoderSessionRepo;
  private detection: ClaudeDetection | null = null;
  private detecting: Promise<ClaudeDetection> | null = null;

  constructor(private readonly o: CoderServiceOptions) {
    this.repo = new CoderSessionRepo(o.db);
  }

  /** Plugs into the engine and clears what a previous run of the app left behind. */
  start(): void {
    this.o.agents.executorFor = (sessionId, kind) => this.runnerFor(sessionId, kind);
    this.o.agents.executorName = (sessionId) => this.repo.get(sessionId).executor;
    // A fork runs on the original's executor; its conversation is resumed through the session's resumeAt.
    this.o.agents.copyExecutor = (from, to) => {
      const r = this.repo.get(from);
      if (r.updatedAt === 0) return;
      this.repo.update(to, { executor: r.executor, injectConstraints: r.injectConstraints, goal: r.goal, claudeSessionId: null, injected: [] });
    };
    // Seed 000's use: a planning session of the built-in loop delegates a step to Claude Code.
    const planTool = {
      spec: coderToolSpec(),
      run: (input: Record<string, unknown>, call: { sessionId: string; turnId: string; signal: AbortSignal }) => this.runPlanTool(input, call),
    };
    this.o.agents.extraTools = (sessionId, mode) => (mode === 'plan' && this.repo.get(sessionId).executor === 'builtin' && !this.placementLaunch?.(sessionId) ? [planTool] : []);
    // A Claude Code turn cannot continue after a restart (its CLI process is gone): approvals
    // it left pending would otherwise resume the session with the built-in loop.
    for (const id of this.repo.claudeCodeSessions()) {
      if (this.o.agents.gate.pending(id).length > 0) this.o.agents.gate.cancelPending(id, 'The Claude Code run ended when Flightdeck stopped.');
    }
    // Run folders (hook secrets) of processes that died without cleaning up: gone at start, not at the next run.
    const stale = removeStaleRunDirs();
    if (stale.length > 0) this.o.logger.info('removed the temporary folders of Claude Code runs whose process is gone', { folders: stale });
  }

  /** Asks every running CLI to stop (SIGTERM to its group); the exit hook SIGKILLs stragglers. */
  dispose(): void {
    liveRuns.signalAllNow('SIGTERM');
  }

  // --- settings and detection ------------------------------------------------------------

  settings(): CoderSettings {
    const parsed = CoderSettings.safeParse({ ...DEFAULT_CODER_SETTINGS, ...(this.o.settings.getInternal<Partial<CoderSettings>>(SETTINGS_KEY) ?? {}) });
    return parsed.success ? parsed.data : DEFAULT_CODER_SETTINGS;
  }

  updateSettings(patch: Partial<CoderSettings>): CoderSettings {
    const next = { ...this.settings(), ...patch };
    this.o.settings.setInternal(SETTINGS_KEY, next);
    if (patch.claudePath !== undefined) this.detection = null;
    return next;
  }

  /** Runs detection now (the settings page's "Detect" button). */
  detect(): Promise<ClaudeDetection> {
    this.detecting ??= detectClaude(this.settings().claudePath).then((d) => {
      this.detection = d;
      this.detecting = null;
      return d;
    });
    return this.detecting;
  }

  private detectCached(): Promise<ClaudeDetection> {
    const d = this.detection;
    if (d && d.found && Date.now() - d.checkedAt < DETECTION_TTL_MS) return Promise.resolve(d);
    return this.detect();
  }

  // --- sessions ----------------------------------------------------------------------------

  sessionConfig(sessionId: string): CoderSessionConfig {
    this.o.agents.getSession(sessionId);
    return this.view(this.repo.get(sessionId));
  }

  private view(r: CoderSessionRecord): CoderSessionConfig {
    return { sessionId: r.sessionId, executor: r.executor, injectConstraints: r.injectConstraints, claudeSessionId: r.claudeSessionId, injected: r.injected, updatedAt: r.updatedAt };
  }

  updateSession(input: { sessionId: string; executor?: Executor; injectConstraints?: boolean; resetConversation?: boolean }): CoderSessionConfig {
    this.o.agents.getSession(input.sessionId);
    if (this.o.agents.isRunning(input.sessionId)) throw new AppError('conflict', 'A turn is running in this session; wait for it or cancel it first.');
    const r = this.repo.update(input.sessionId, {
      ...(input.executor !== undefined ? { executor: input.executor } : {}),
      ...(input.injectConstraints !== undefined ? { injectConstraints: input.injectConstraints } : {}),
      ...(input.resetConversation ? { claudeSessionId: null, injected: [] } : {}),
    });
    this.changed(input.sessionId);
    return this.view(r);
  }

  private changed(sessionId: string): void {
    this.o.hub.publish('coder.sessions.changed', this.view(this.repo.get(sessionId)));
    const s = this.o.agents.sessions.get(sessionId);
    if (s) this.o.hub.publish('agents.sessions.changed', { session: this.o.agents.toSession(s), removedId: null });
  }

  async constraints(root: string): Promise<ConstraintsInfo> {
    const loaded = await loadConstraints(root);
    // A refused contract is named on its file below; its scope reads as none here.
    const contract = await readContract(root).catch(() => null);
    const files = (Object.entries(CONSTRAINT_FILES) as Array<[ConstraintName, string]>).map(([name, path]) => {
      const f = loaded.files.find((x) => x.name === name);
      const refused = loaded.refused.find((x) => x.path === path);
      return { name, path, exists: f !== undefined || refused !== undefined, chars: f?.chars ?? 0, ...(refused ? { refused: refused.reason } : {}) };
    });
    return { root, files, scope: contract?.sections.scope ?? { allowed: [], forbidden: [] } };
  }

  // --- the engine's hooks ------------------------------------------------------------------

  private hidden(): HiddenPath[] {
    const dir = this.o.dataDir;
    return dir ? [{ path: dir, kind: 'dir' }, { path: join(dir, 'secrets.json'), kind: 'file' }] : [];
  }

  /** Chat input of a claude-code session runs here; `!` and `/` stay with the engine. */
  runnerFor(sessionId: string, kind: 'chat' | 'bang' | 'slash'): TurnRunner | null {
    if (kind !== 'chat' || this.repo.get(sessionId).executor !== 'claude-code') return null;
    const launch = this.placementLaunch?.(sessionId) ?? null;
    if (launch !== null) {
      return async (ctx, input) => {
        let l: { path: string; env: Record<string, string> };
        try {
          l = await launch();
        } catch (e) {
          const message = `Not run: the session's container could not start. ${e instanceof Error ? e.message : String(e)}`;
          ctx.emit({ type: 'error', code: 'unavailable', message, retryable: true });
          return { outcome: 'failed', message };
        }
        return runClaudeCodeTurn(ctx, input, {
          repo: this.repo,
          settings: () => this.settings(),
          // The CLI is the container's; the launcher stands in for it on the host.
          detect: async () => ({ ...(await this.detectCached()), found: true, path: l.path }),
          envOverrides: { ...this.o.envOverrides, ...l.env },
          killGraceMs: this.o.killGraceMs,
          hidden: this.hidden(),
          changed: (id) => this.changed(id),
        });
      };
    }
    return (ctx, input) =>
      runClaudeCodeTurn(ctx, input, {
        repo: this.repo,
        settings: () => this.settings(),
        detect: () => this.detectCached(),
        envOverrides: this.o.envOverrides,
        killGraceMs: this.o.killGraceMs,
        hidden: this.hidden(),
        changed: (id) => this.changed(id),
        // On the host only: a container's CLI could not start the host's stdio servers.
        mcpServers: (projectId) => this.mcpConfig?.(projectId).mcpServers ?? {},
        redactToolResult: (tool, text) => this.mcpRedact?.(tool, text) ?? text,
      });
  }

  /**
   * The plan-mode `coder` tool for a session (see plan-tool.ts for the wiring): delegated runs
   * use the session's profile and gate, judged in `innerMode`.
   */
  async runPlanTool(input: unknown, call: { sessionId: string; turnId: string | null; signal: AbortSignal; innerMode?: 'default' | 'auto-edit' }): Promise<CoderToolOutcome> {
    const s = this.o.agents.getSession(call.sessionId);
    const resolved = this.o.agents.profiles.resolve(s.profile, s.model);
    const profile = this.o.agents.profiles.get(s.profile);
    const innerMode = call.innerMode ?? 'default';
    return runCoderTool(input, {
      root: s.root,
      signal: call.signal,
      backend: { profile: s.profile, baseUrl: resolved.baseUrl, apiKey: resolved.apiKey ?? '', model: s.model, authMode: authModeFor(profile?.preset, resolved.baseUrl) },
      detect: () => this.detectCached(),
      envOverrides: this.o.envOverrides,
      network: sessionSandboxPolicy({ root: s.root, mode: s.mode, sandbox: s.sandbox }, this.o.agents.settings()).network,
      hidden: this.hidden(),
      gate: {
        decide: (r, signal) =>
          this.o.agents.gate.decide({
            sessionId: call.sessionId,
            tool: r.claudeTool,
            input: withRelativePaths(r.claudeTool, r.claudeInput, r.cd),
            mode: innerMode,
            toolUseId: r.toolUseId || undefined,
            turnId: call.turnId,
            source: 'claude-code',
            signal: AbortSignal.any([signal, call.signal]),
          }),
      },
    });
  }
}

/**
 * Seed 001 §4–§5: for one tool call, the tool switch, the hard floor, the mode and the policy
 * preset decide allow / ask / deny. Pure: the same inputs always give the same decision, and
 * the reason is written for the user (and, on deny, for the model).
 *
 * Order: switched-off tool → hard floor (bash) → yolo + bash (runs unasked) → read tools →
 * read-only preset → plan mode → auto-edit / yolo writes → remembered session rules → preset.
 */
import type { AgentMode, PolicyDecision, PolicyPreset, RiskLevel } from '../../../src-preload/contract';
import { classifyCommand } from './command-class';
import { commandSessionRule, matchingRules } from './command-family';
import { checkHardFloor, type HardFloorContext } from './hard-floor';
import { checkRoleGuard } from './role-guard';

export type DecisionSource = 'disabled' | 'hard_floor' | 'role_guard' | 'mode' | 'policy' | 'session_rule' | 'yolo';

export interface PolicyInput {
  tool: string;
  input: Record<string, unknown>;
  mode: AgentMode;
  preset: PolicyPreset;
  disabledTools: readonly string[];
  /** Whether the hard floor is on (settings). */
  hardFloor: boolean;
  floor?: HardFloorContext;
  /** The session plays the Coder role of a feature or autopilot run: its guard applies even with the hard floor off. */
  roleGuard?: boolean;
  /** Rules remembered by "approve for this session". */
  sessionRules: readonly string[];
  /**
   * write/patch: how many names (hard links) the target file has. More than one: the same file
   * may also be outside the root, so the change asks first in every mode.
   */
  targetLinks?: number;
  /** A tool of another capability the user set to always allow or always deny (an MCP tool in Settings → MCP servers); absent = it asks. */
  fixedPolicy?: 'allow' | 'deny' | null;
}

export interface PolicyResult {
  decision: PolicyDecision;
  source: DecisionSource;
  reason: string;
  risk: RiskLevel;
  /** What "approve for this session" would remember for this call. */
  sessionRule: string;
}

export const READ_TOOLS = new Set(['read', 'glob', 'grep', 'todo']);
export const WRITE_TOOLS = new Set(['write', 'patch']);

export function sessionRuleFor(tool: string, input: Record<string, unknown>): string {
  if (tool === 'bash') return commandSessionRule(String(input.command ?? ''));
  return tool;
}

/** The session rule for writing through one hard-linked file. */
export function hardLinkRule(tool: string, input: Record<string, unknown>): string {
  return `${tool} hard-linked ${String(input.path ?? '')}`;
}

/** What a call allowed by remembered rules says: the rules that matched, by their text. */
function ruleReason(rules: readonly string[]): string {
  return `Approved for this session by the rule ${rules.map((m) => `"${m}"`).join(' and ')}.`;
}

export function decideTool(p: PolicyInput): PolicyResult {
  const rule = sessionRuleFor(p.tool, p.input);
  const r = (decision: PolicyDecision, source: DecisionSource, reason: string, risk: RiskLevel): PolicyResult => ({
    decision,
    source,
    reason,
    risk,
    sessionRule: rule,
  });

  if (p.disabledTools.includes(p.tool)) {
    return r('deny', 'disabled', `The ${p.tool} tool is switched off for this session.`, 'low');
  }

  if (p.tool === 'bash') {
    const command = String(p.input.command ?? '');
    if (p.roleGuard) {
      const guard = checkRoleGuard(command);
      if (guard.blocked) {
        return r('deny', 'role_guard', `Refused by the Coder role's guard: ${guard.reason}. An agent working unattended on a feature or an autopilot run never runs this, in any mode.`, 'critical');
      }
    }
    if (p.hardFloor) {
      const floor = checkHardFloor(command, p.floor);
      if (floor.blocked) {
        return r('deny', 'hard_floor', `Refused by the hard floor: ${floor.reason}. This is refused in every mode, yolo included; the user can turn the hard floor off in Settings → Agents → Hard floor.`, 'critical');
      }
    }
    const cls = classifyCommand(command);
    if (p.mode === 'yolo') return r('allow', 'yolo', 'yolo mode: commands run without asking.', cls.risk);
    if (p.preset === 'read-only' && !cls.readOnly) {
      return r('deny', 'policy', 'The read-only preset allows only read-only commands (ls, cat, grep, git status/diff/log…).', cls.risk);
    }
    if (p.mode === 'plan' && !cls.readOnly) {
      return r('deny', 'mode', 'plan mode: commands with side effects are not run. Only read-only commands (ls, cat, grep, git status/diff/log…) are; propose the command in the plan instead.', cls.risk);
    }
    if (cls.readOnly && p.preset !== 'strict') return r('allow', 'policy', 'A read-only command.', 'low');
    // Only a rule that really matched every part allows: its text is named, not the one this call would store.
    const matched = matchingRules(p.sessionRules, command);
    if (matched) return r('allow', 'session_rule', ruleReason(matched), cls.risk);
    return r('ask', 'policy', `${p.preset} preset: ${cls.readOnly ? 'every command asks' : 'commands that are not read-only ask'}.`, cls.risk);
  }

  if (READ_TOOLS.has(p.tool)) return r('allow', 'policy', 'Reading is always allowed inside the session root.', 'low');

  if (WRITE_TOOLS.has(p.tool)) {
    if (p.preset === 'read-only') return r('deny', 'policy', 'The read-only preset does not allow changing files.', 'medium');
    if (p.mode === 'plan') {
      return r('deny', 'mode', 'plan mode: files are not changed. Describe the change in the plan; switch to default or auto-edit mode to apply it.', 'medium');
    }
    if ((p.targetLinks ?? 1) > 1) {
      // Remembered per file: approving one hard-linked file does not approve writing through others.
      const linkRule = hardLinkRule(p.tool, p.input);
      if (p.sessionRules.includes(linkRule)) return { ...r('allow', 'session_rule', ruleReason([linkRule]), 'high'), sessionRule: linkRule };
      const path = String(p.input.path ?? 'the file');
      return {
        ...r('ask', 'policy', `${path} has ${p.targetLinks} hard links: changing it also changes the same file under its other names, which can be outside the session root. This asks in every mode.`, 'high'),
        sessionRule: linkRule,
      };
    }
    if (p.mode === 'auto-edit' || p.mode === 'yolo') return r('allow', 'mode', `${p.mode} mode: edits inside the root run without asking.`, 'medium');
    if (p.sessionRules.includes(rule)) return r('allow', 'session_rule', ruleReason([rule]), 'medium');
    if (p.preset === 'trusted') return r('allow', 'policy', 'trusted preset: edits inside the root run without asking.', 'medium');
    return r('ask', 'policy', `${p.preset} preset: changing files asks.`, 'medium');
  }

  if (p.tool === 'coder') {
    // Delegating a step to Claude Code is what plan mode is for (seed 000); the user sees the
    // prompt first, and every edit or command inside the run is judged again by this policy.
    if (p.preset === 'read-only') return r('deny', 'policy', 'The read-only preset does not allow delegating work that changes files.', 'high');
    if (p.mode !== 'plan') return r('deny', 'mode', 'coder is offered in plan mode only; in other modes the agent edits directly.', 'high');
    if (p.sessionRules.includes(rule)) return r('allow', 'session_rule', ruleReason([rule]), 'high');
    return r('ask', 'policy', 'plan mode: delegating a step to Claude Code asks first; its edits and commands are checked again inside the run.', 'high');
  }

  // A tool this engine does not know (another executor's, an MCP server's): never silently allowed.
  if (p.fixedPolicy === 'deny') return r('deny', 'policy', `${p.tool} is set to Deny (Settings → MCP servers).`, 'medium');
  if (p.mode === 'plan' || p.preset === 'read-only') return r('deny', 'mode', `${p.tool} is not allowed in plan mode or with the read-only preset.`, 'medium');
  if (p.fixedPolicy === 'allow') return r('allow', 'policy', `${p.tool} is set to Allow (Settings → MCP servers).`, 'medium');
  if (p.sessionRules.includes(rule)) return r('allow', 'session_rule', ruleReason([rule]), 'medium');
  if (p.mode === 'yolo') return r('allow', 'yolo', 'yolo mode: tools run without asking.', 'medium');
  return r('ask', 'policy', `${p.tool} asks for approval.`, 'medium');
}

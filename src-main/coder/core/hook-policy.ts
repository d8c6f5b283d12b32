/**
 * What the approval hook answers before (or instead of) asking Flightdeck's gate.
 *
 * 1. Confinement: in read-only and workspace-write, file tools may only touch paths inside
 *    cd (after symlinks are resolved by the caller). Claude Code itself would let a hook's
 *    "allow" through to any path, so the hook is where "tools cannot escape their root" holds.
 * 2. Without a gate (the CLI, scripts), the engine's own pure policy decides, headless:
 *    read-only = plan mode + read-only preset (reads and read-only commands only);
 *    workspace-write and danger-full-access = yolo (everything runs, the hard floor aside).
 *    Anything that would "ask" is denied: there is no one to answer.
 */
import { decideTool } from '../../agents/policy/policy';
import type { Sandbox } from './params';
import { checkScope, hasScope, type ContractScope } from './scope';
import { CLAUDE_WRITE_TOOLS, isInside } from './tool-map';

export interface HookVerdict {
  allow: boolean;
  reason: string;
}

/** `resolvedPaths` are absolute and symlink-free; a non-null answer is a refusal. */
export function confinementVerdict(sandbox: Sandbox, root: string, resolvedPaths: readonly string[]): HookVerdict | null {
  if (sandbox === 'danger-full-access') return null;
  const outside = resolvedPaths.find((p) => !isInside(root, p));
  if (outside === undefined) return null;
  return { allow: false, reason: `${outside} is outside the working folder ${root}; in ${sandbox} mode tools may only use files inside it.` };
}

/**
 * The contract's scope, before a file-changing tool runs: a path the Implementation Contract
 * puts out of scope is refused with the reason (the model reads it and can stay inside).
 * `resolvedPaths` are absolute and symlink-free; commands are checked after the run instead
 * (the hook sees a command's text, not the files it will touch).
 */
export function scopeVerdict(scope: ContractScope | null, root: string, claudeTool: string, resolvedPaths: readonly string[]): HookVerdict | null {
  if (!scope || !hasScope(scope) || !(CLAUDE_WRITE_TOOLS as readonly string[]).includes(claudeTool)) return null;
  const base = root.endsWith('/') ? root : `${root}/`;
  const rel = resolvedPaths.map((p) => (isInside(root, p) ? p.slice(base.length) : `../${p}`));
  const broken = checkScope(rel, scope);
  if (broken.length === 0) return null;
  const allowed = scope.allowed.length > 0 ? ` Allowed paths: ${scope.allowed.join(', ')}.` : '';
  const forbidden = scope.forbidden.length > 0 ? ` Out of scope: ${scope.forbidden.join(', ')}.` : '';
  return {
    allow: false,
    reason: `Refused by the Implementation Contract (ai/contracts/current.md): ${broken.map((b) => `${b.path} is ${b.reason}`).join('; ')}.${allowed}${forbidden} Stay inside the contract's scope, or stop and ask for clarification.`,
  };
}

/** `targetLinks`: hard links of the file a write/patch changes (more than one asks, so headless refuses). */
export function headlessVerdict(sandbox: Sandbox, engineTool: string, engineInput: Record<string, unknown>, facts: { targetLinks?: number } = {}): HookVerdict {
  const readOnly = sandbox === 'read-only';
  const decision = decideTool({
    tool: engineTool,
    input: engineInput,
    mode: readOnly ? 'plan' : 'yolo',
    preset: readOnly ? 'read-only' : 'trusted',
    disabledTools: [],
    hardFloor: true,
    sessionRules: [],
    ...(facts.targetLinks !== undefined ? { targetLinks: facts.targetLinks } : {}),
  });
  if (decision.decision === 'allow') return { allow: true, reason: decision.reason };
  if (decision.decision === 'deny') return { allow: false, reason: decision.reason };
  return { allow: false, reason: `${decision.reason} No one can approve it in a headless run, so it was refused.` };
}

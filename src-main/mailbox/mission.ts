/**
 * AGENT_MISSION.md, the workspace's hand-over memory between agents, and the behaviour rules
 * every mailbox agent gets: the mission is created from its template when missing, and after a
 * task Flightdeck checks that the progress table and the next steps were brought up to date.
 * A project's `.clauderc` may add its own `systemPrompt`.
 */
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { writeNewFile } from '../platform/atomic-file';
import { FileTooLargeError, readFileInside } from '../platform/contained-path';

export const MISSION_FILE = 'AGENT_MISSION.md';
export const CLAUDERC_FILE = '.clauderc';

/** Largest `.clauderc` read: it holds one prompt, not a document. */
const MAX_CLAUDERC_BYTES = 64 * 1024;
/** Largest AGENT_MISSION.md read: a page of rules and a roadmap; the agent may grow it, never without bound. */
const MAX_MISSION_BYTES = 256 * 1024;

/**
 * The language of a new mission's template: English by default, or the format's own Chinese
 * template. Either is read by the checks below; what agents write in it stays as written.
 */
export type MissionLanguage = 'en' | 'zh';

/** The mission's template: English, or (`zh`) the Chinese one the format defines. */
export function missionTemplate(date: Date, language: MissionLanguage = 'en'): string {
  const day = date.toISOString().slice(0, 10);
  if (language === 'en')
    return `# Agent Mission Control

## Vision and Goals
- **Goal**: [project goal]
- **Tech stack**: [main technologies]
- **Key constraints**: [limits]

## Roadmap
- [ ] Stage 1: [description]
- [ ] Stage 2: [description]
- [ ] Stage 3: [description]

## Progress
| Module | Status | Progress | Last update | Notes |
| :--- | :--- | :--- | :--- | :--- |
| [module] | Not started | 0% | - | - |

## Pitfalls
> Format: **[date]** problem → failed attempts → final solution

## Next Steps
- [ ] [next task 1]
- [ ] [next task 2]

## Change History
| Date | Agent | Change |
| :--- | :--- | :--- |
| ${day} | Agent | Created the document |
`;
  return `# Agent 任务指挥手册 (Mission Control)

## 项目愿景与目标
- **目标**: [项目目标]
- **技术栈**: [主要技术栈]
- **关键约束**: [限制条件]

## 当前工作计划 (Roadmap)
- [ ] 阶段 1: [描述]
- [ ] 阶段 2: [描述]
- [ ] 阶段 3: [描述]

## 实施进度追踪
| 模块 | 状态 | 进度 | 最后更新 | 备注 |
| :--- | :--- | :--- | :--- | :--- |
| [模块名] | 未开始 | 0% | - | - |

## 避坑指南与经验记录 (The Pitfalls)
> 记录格式：**[日期]** 问题描述 → 失败尝试 → 最终方案

## 下一步指令 (Next Steps)
- [ ] [待完成任务 1]
- [ ] [待完成任务 2]

## 变更历史
| 日期 | 智能体 | 变更内容 |
| :--- | :--- | :--- |
| ${day} | Agent | 初始化文档 |
`;
}

/** The behaviour rules of a long-lived project's maintainer agent (the format's `.clauderc` example). */
export const BEHAVIOUR_RULES = `你是这个长期项目的维护者。你的行为准则如下：
1. 文档先于代码：在修改任何核心逻辑前，先检查 AGENT_MISSION.md
2. 记录失败：如果尝试一个修复方案失败了，必须在避坑指南中记录
3. 强制更新：任务结束前，必须更新实施进度和下一步指令
4. ADR 触发：架构变动或复杂 Bug 修复时，创建 ADR 文档
5. 提交规范：使用 Conventional Commits 格式提交代码
6. 交接意识：时刻记住，你的工作可能由其他智能体接手`;

/** Creates AGENT_MISSION.md from the template when the workspace has none. True when created. */
export function ensureMission(workspace: string, now: Date, language: MissionLanguage = 'en'): boolean {
  const file = join(workspace, MISSION_FILE);
  if (existsSync(file)) return false;
  try {
    writeNewFile(file, missionTemplate(now, language), 0o644);
  } catch (e) {
    // Another task created it a moment ago: it exists now, which is all that is wanted.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  return true;
}

/** The mission's text, or null when there is none (or it is not a regular file). */
export function readMission(workspace: string): string | null {
  try {
    return readFileInside(workspace, MISSION_FILE, { maxBytes: MAX_MISSION_BYTES, what: 'mission file' }).toString('utf8');
  } catch {
    // Missing, removed by the agent, a symlink (it could name any file of the user's), a special
    // or oversized file: all read as "no mission" and reported as such.
    return null;
  }
}

/**
 * Text of the `## ` section whose heading starts with `prefix` (or one of `prefix`, the first
 * found; English ones compared case-insensitively), without its heading; null when absent.
 */
export function missionSection(text: string, prefix: string | readonly string[]): string | null {
  const lines = text.split(/\r?\n/);
  const prefixes = (typeof prefix === 'string' ? [prefix] : prefix).map((p) => p.toLowerCase());
  const start = lines.findIndex((l) => /^##\s/.test(l) && prefixes.some((p) => l.replace(/^##\s+/, '').toLowerCase().startsWith(p)));
  if (start < 0) return null;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (/^##?\s/.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  return lines.slice(start + 1, end).join('\n').trim();
}

/** Each section's heading in the Chinese template, then in the English one. */
export const PROGRESS_SECTION = ['实施进度追踪', 'Progress'] as const;
export const NEXT_STEPS_SECTION = ['下一步指令', 'Next Steps'] as const;
export const ROADMAP_SECTION = ['当前工作计划', 'Roadmap'] as const;

export interface MissionCheck {
  exists: boolean;
  progressUpdated: boolean;
  nextStepsUpdated: boolean;
  /** The first unchecked roadmap item, as the mission stage a report refers to. */
  stage: string | null;
}

/** Compares the mission before and after a task: were the progress table and the next steps changed? */
export function checkMissionUpdate(before: string | null, after: string | null): MissionCheck {
  if (after === null) return { exists: false, progressUpdated: false, nextStepsUpdated: false, stage: null };
  const changed = (name: readonly string[]) => {
    const a = missionSection(after, name);
    return a !== null && a !== (before === null ? null : missionSection(before, name));
  };
  return { exists: true, progressUpdated: changed(PROGRESS_SECTION), nextStepsUpdated: changed(NEXT_STEPS_SECTION), stage: missionStage(after) };
}

/** The roadmap item being worked on: the first unchecked one, else the last. */
export function missionStage(text: string): string | null {
  const roadmap = missionSection(text, ROADMAP_SECTION);
  if (!roadmap) return null;
  const items = roadmap
    .split('\n')
    .map((l) => /^\s*-\s*\[( |x|X)\]\s*(.+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const open = items.find((m) => m[1] === ' ');
  return (open ?? items[items.length - 1])?.[2]?.trim() ?? null;
}

/** A project's `.clauderc` `systemPrompt`: the text, null when absent, or the reason it was not used. */
export function readClaudercPrompt(workspace: string): { prompt: string | null; warning: string | null } {
  const file = join(workspace, CLAUDERC_FILE);
  // A dangling symlink is present too: it is refused below, naming it.
  if (!existsSync(file) && !isSymlink(file)) return { prompt: null, warning: null };
  let text: string;
  try {
    // A regular file inside the workspace only: a link there could name any file of the user's.
    text = readFileInside(workspace, CLAUDERC_FILE, { maxBytes: MAX_CLAUDERC_BYTES, what: '.clauderc' }).toString('utf8');
  } catch (e) {
    if (e instanceof FileTooLargeError) return { prompt: null, warning: `${CLAUDERC_FILE} is ${e.size} bytes (at most ${MAX_CLAUDERC_BYTES}); not used.` };
    return { prompt: null, warning: `${CLAUDERC_FILE} could not be read: ${(e as Error).message}` };
  }
  let json: unknown;
  try {
    // The format's own example breaks a string over lines; JSON forbids that, so raw line breaks inside strings are escaped first.
    json = JSON.parse(escapeNewlinesInStrings(text));
  } catch (e) {
    return { prompt: null, warning: `${CLAUDERC_FILE} is not valid JSON (${(e as Error).message}); its systemPrompt is not used.` };
  }
  const p = (json as { systemPrompt?: unknown } | null)?.systemPrompt;
  if (p === undefined) return { prompt: null, warning: null };
  if (typeof p !== 'string') return { prompt: null, warning: `${CLAUDERC_FILE}: systemPrompt must be text; not used.` };
  return { prompt: p.trim() || null, warning: null };
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    // Missing: not a link.
    return false;
  }
}

/** Replaces raw line breaks inside JSON string literals with `\n`, leaving everything else alone. */
export function escapeNewlinesInStrings(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') {
        out += c + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') inString = false;
      if (c === '\n') {
        out += '\\n';
        continue;
      }
      if (c === '\r') continue;
    } else if (c === '"') inString = true;
    out += c;
  }
  return out;
}

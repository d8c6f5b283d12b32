import { existsSync, readFileSync, readdirSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { expect } from 'vitest';
import type { AppServices } from '../../../src-main/app/services';
import { SessionDriver } from '../../../src-main/agents/session-driver';
import { driverAgentPort } from '../../../src-main/mailbox/agent-port';
import { MailboxProcessor, type MailboxProcessorOptions } from '../../../src-main/mailbox/processor';
import { RAW_DATA_SECTIONS, REPORT_SECTIONS } from '../../../src-main/mailbox/report';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';
import { saveTestProfile } from '../agents/harness';

export interface MailboxHarness {
  app: AppServices;
  server: ModelServer;
  root: string;
  dataDir: string;
  processor(over?: Partial<MailboxProcessorOptions>): MailboxProcessor;
  restartApp(): Promise<void>;
  cleanup(): Promise<void>;
}

/** Real services on a temp data folder, the scripted model server, and a seed-style mailbox root. */
export async function mailboxHarness(script: Script): Promise<MailboxHarness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-mbx-data-');
  const box = tempDir('fd-mbx-root-');
  let started = await startTestApp(data.path);
  started.app.agents.backoff = { baseMs: 5, maxMs: 40 };
  saveTestProfile(started.app, server.url);
  const processors: MailboxProcessor[] = [];
  return {
    get app() {
      return started.app;
    },
    server,
    root: box.path,
    dataDir: data.path,
    processor(over = {}) {
      const app = started.app;
      const p = new MailboxProcessor({
        root: box.path,
        agent: driverAgentPort({ driver: new SessionDriver(app.agents, app.coder), hub: app.hub }),
        globalContextDir: join(data.path, 'context', 'global'),
        pollMs: 100,
        stableMs: 150,
        ...over,
      });
      processors.push(p);
      return p;
    },
    async restartApp() {
      started.app.dispose();
      started = await startTestApp(data.path);
    },
    async cleanup() {
      if (process.env.MAILBOX_TEST_DUMP) for (const f of ['logs/monitor.log', ...ls(join(box.path, 'logs')).filter((n) => n.startsWith('debug-')).map((n) => `logs/${n}`)]) if (existsSync(join(box.path, f))) console.log(`== ${f}\n${readFileSync(join(box.path, f), 'utf8')}`);
      for (const p of processors) await p.dispose();
      started.app.dispose();
      await server.close();
      data.cleanup();
      box.cleanup();
    },
  };
}

/** Drops a command file the way a careful tool does: written beside, then renamed into pending/. */
export function dropCommand(root: string, name: string, text: string): void {
  const tmp = join(root, 'commands', 'pending', `.${name}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, join(root, 'commands', 'pending', name));
}

export function commandText(o: { id: string; type?: 'new' | 'continue' | 'end'; session?: string; task: string; extra?: string }): string {
  return `---\nid: ${o.id}\ncreated_at: 2026-02-22T10:00:00Z\nsession_id: ${o.session ?? 'auto'}\ncommand_type: ${o.type ?? 'new'}\n${o.extra ?? ''}---\n\n## 任务描述\n\n${o.task}\n`;
}

export async function until<T>(pick: () => T | undefined | null | false, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = pick();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function ls(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Parses a report: its front matter (checked) and the list of `## ` headings. */
export function readReport(file: string, detailed: boolean): { fm: { session_id: string; report_date: string; status: string; tags: string[] }; text: string } {
  const text = readFileSync(file, 'utf8');
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  expect(m, `${file} has a front matter`).not.toBeNull();
  const lines = m![1]!.split('\n');
  expect(lines.map((l) => l.split(':')[0])).toEqual(['session_id', 'report_date', 'status', 'tags']);
  expect(lines[0]).toMatch(/^session_id: "[^"]+"$/);
  expect(lines[1]).toMatch(/^report_date: "\d{4}-\d{2}-\d{2}T[^"]+Z"$/);
  expect(lines[2]).toMatch(/^status: "(SUCCESS|FAILED|PARTIAL_SUCCESS)"$/);
  expect(lines[3]).toMatch(/^tags: \[.*\]$/);
  const fm = parseYaml(m![1]!) as { session_id: string; report_date: string; status: string; tags: string[] };
  expect(Object.keys(fm)).toEqual(['session_id', 'report_date', 'status', 'tags']);
  expect(typeof fm.session_id).toBe('string');
  expect(Number.isNaN(Date.parse(fm.report_date))).toBe(false);
  expect(['SUCCESS', 'FAILED', 'PARTIAL_SUCCESS']).toContain(fm.status);
  expect(Array.isArray(fm.tags)).toBe(true);
  expect(text).toContain('# 执行任务总结报告');
  let at = 0;
  for (const s of REPORT_SECTIONS) {
    const i = text.indexOf(`\n${s}\n`, at);
    expect(i, `${file} has "${s}" after the previous section`).toBeGreaterThan(0);
    at = i;
  }
  for (const line of ['- **原始指令**:', '- **关联 Mission 阶段**:', '- **执行状态**:', '### 文件变更', '### 功能实现', '### 验证结果', '- **决策内容**:', '- **进度更新**:', '- **下一手建议**:', '- **Git Commit**:', '- **相关日志**:']) {
    expect(text, `${file} has ${line}`).toContain(line);
  }
  if (detailed) {
    const raw = text.indexOf('\n## 原始执行数据\n');
    expect(raw).toBeGreaterThan(at);
    let r = raw;
    for (const s of RAW_DATA_SECTIONS) {
      const i = text.indexOf(`\n${s}\n`, r);
      expect(i, `${file} has "${s}" in the raw data`).toBeGreaterThan(0);
      r = i;
    }
    expect(text).toMatch(/- 当前轮次: \d+/);
    expect(text).toMatch(/- 等待继续: (是|否)/);
  } else {
    expect(text).not.toContain('## 原始执行数据');
  }
  return { fm, text };
}

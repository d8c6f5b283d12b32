/**
 * The real CLI's stream, replayed line by line through what a Flightdeck turn does with it (the
 * mapper counts usage, then the tool uses are noted): a tool use is released only once its call's
 * usage was counted. The CLI prints a tool_use block's line before the call's usage, so a release
 * at that line lets the approval of a tool that reached a limit through (counted-tools.ts).
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CountedToolUses } from '../../../src-main/coder/counted-tools';
import { StreamEventMapper } from '../../../src-main/coder/core/events';
import type { StreamMessage } from '../../../src-main/coder/core/stream-json';
import { CLAUDE_BIN, claudeEnv, makeClaudeSandbox, runClaude, type ClaudeSandbox } from '../../fixtures/model-server/claude-cli';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index';

let server: ModelServer | null = null;
let box: ClaudeSandbox | null = null;
afterEach(async () => {
  await server?.close();
  if (box) await rm(box.root, { recursive: true, force: true });
  server = null;
  box = null;
});

describe("the real Claude Code CLI's stream", () => {
  it.runIf(existsSync(CLAUDE_BIN))(
    'prints a tool use before its call usage; the tool use is released after the usage was counted, not at its own line',
    async () => {
      box = await makeClaudeSandbox();
      server = await startModelServer({
        script: [
          { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: join(box.cwd, 'a.txt'), content: 'x\n' } }], usage: { input_tokens: 1000, output_tokens: 100 } },
          { blocks: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 1000, output_tokens: 10 } },
        ],
      });
      const run = await runClaude({
        args: ['-p', 'write a.txt', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--permission-mode', 'acceptEdits'],
        cwd: box.cwd,
        env: claudeEnv({ baseUrl: server.url, home: box.home }),
      });
      expect(run.code, run.stderr).toBe(0);
      const toolLine = run.messages.findIndex((m) => m.type === 'assistant' && JSON.stringify(m.message).includes('"tool_use"'));
      const usageLine = run.messages.findIndex((m) => m.type === 'stream_event' && (m.event as { type?: string }).type === 'message_delta');
      expect(toolLine).toBeGreaterThanOrEqual(0);
      // The order that made a release at the tool use's own line too early.
      expect(usageLine).toBeGreaterThan(toolLine);

      const toolUseId = ((run.messages[toolLine]!.message as { content: Array<{ id: string }> }).content[0]!).id;
      const mapper = new StreamEventMapper({ sessionId: 's', turnId: 't', profile: 'p', model: 'm', newMessageId: () => 'x', now: Date.now, price: () => 0 });
      const counted = new CountedToolUses();
      let usages = 0;
      let usagesAtRelease: number | null = null;
      void counted.counted(toolUseId, new AbortController().signal, 60_000).then(() => (usagesAtRelease = usages));
      for (const m of run.messages as StreamMessage[]) {
        usages += mapper.map(m).filter((e) => e.type === 'usage').length;
        counted.note(m);
        await Promise.resolve();
        await Promise.resolve();
        if (usagesAtRelease !== null) break;
      }
      expect(usagesAtRelease).toBe(1);
    },
    90_000,
  );
});

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_POINTS, parsePoints, parseResumePoint, resumePointFor, withPoint } from '../../../src-main/agents/orchestrator/conversation-points';
import { parseRawDiff } from '../../../src-main/agents/orchestrator/tree-snapshot';
import { claudeArgs } from '../../../src-main/coder/core/launch';
import { isLostSession } from '../../../src-main/coder/core/classify';
import { conversationFile, replayPrompt, REPLAY_MAX_CHARS } from '../../../src-main/coder/conversation-resume';
import type { StoredMessage } from '../../../src-main/agents/store/message-repo';
import { tempDir } from '../../support/temp';

const C1 = '11111111-2222-4333-8444-555555555555';
const M1 = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

describe('conversation points', () => {
  it('keeps only well-formed points from a stored state', () => {
    const good = { turnId: 't1', conversationId: C1, messageId: M1, cwd: '/repo' };
    expect(parsePoints([good, { ...good, conversationId: '../../etc' }, { ...good, cwd: 'relative' }, { ...good, messageId: 5 }, null, 'x'])).toEqual([good]);
    expect(parsePoints('nope')).toEqual([]);
    expect(parsePoints(Array.from({ length: MAX_POINTS + 3 }, (_, i) => ({ ...good, turnId: `t${i}` })))).toHaveLength(MAX_POINTS);
  });

  it('parses resume points and refuses malformed ones', () => {
    expect(parseResumePoint({ kind: 'replay' })).toEqual({ kind: 'replay' });
    expect(parseResumePoint({ kind: 'fresh', extra: 1 })).toEqual({ kind: 'fresh' });
    expect(parseResumePoint({ kind: 'at', conversationId: C1, messageId: M1, cwd: '/r' })).toEqual({ kind: 'at', conversationId: C1, messageId: M1, cwd: '/r' });
    expect(parseResumePoint({ kind: 'at', conversationId: '/tmp/x.jsonl', messageId: M1, cwd: '/r' })).toBeNull();
    expect(parseResumePoint({ kind: 'rewind' })).toBeNull();
    expect(parseResumePoint(null)).toBeNull();
  });

  it('a rewind or fork resumes at the turn\'s point, replays without one, and starts fresh at turn 0', () => {
    const turns = [{ turnId: 't1' }, { turnId: 't2' }, { turnId: 't3' }];
    const points = withPoint(withPoint([], { turnId: 't1', conversationId: C1, messageId: M1, cwd: '/r' }), { turnId: 't3', conversationId: C1, messageId: M1, cwd: '/r' });
    expect(resumePointFor(points, turns, 0)).toEqual({ kind: 'fresh' });
    expect(resumePointFor(points, turns, 1)).toEqual({ kind: 'at', conversationId: C1, messageId: M1, cwd: '/r' });
    expect(resumePointFor(points, turns, 2)).toEqual({ kind: 'replay' });
    expect(resumePointFor(undefined, turns, 3)).toEqual({ kind: 'replay' });
    // A turn records one point: its last.
    expect(withPoint(points, { turnId: 't1', conversationId: C1, messageId: C1, cwd: '/r' }).filter((p) => p.turnId === 't1')).toEqual([{ turnId: 't1', conversationId: C1, messageId: C1, cwd: '/r' }]);
  });
});

describe('working-tree checkpoints', () => {
  it('reads git diff-tree -z --raw output, including paths with spaces and newlines', () => {
    const z = '0'.repeat(40);
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const out = `:100644 100644 ${a} ${b} M\0dir/a file.txt\0:000000 100644 ${z} ${b} A\0new\nline.txt\0:100644 000000 ${a} ${z} D\0gone.txt\0`;
    expect(parseRawDiff(out)).toEqual([
      { path: 'dir/a file.txt', oldMode: '100644', newMode: '100644', oldBlob: a, newBlob: b },
      { path: 'new\nline.txt', oldMode: '000000', newMode: '100644', oldBlob: z, newBlob: b },
      { path: 'gone.txt', oldMode: '100644', newMode: '000000', oldBlob: a, newBlob: z },
    ]);
    expect(parseRawDiff('')).toEqual([]);
    expect(parseRawDiff('garbage\0')).toEqual([]);
  });
});

describe('Claude Code resume at a message', () => {
  it('adds --resume-session-at and --fork-session only with --resume', () => {
    const args = claudeArgs({ sandbox: 'workspace-write', settingsPath: '/s', resume: C1, resumeAt: M1 });
    expect(args.slice(args.indexOf('--resume'))).toEqual(['--resume', C1, '--resume-session-at', M1, '--fork-session']);
    expect(claudeArgs({ sandbox: 'workspace-write', settingsPath: '/s', resumeAt: M1 })).not.toContain('--resume-session-at');
  });

  it('a message the conversation does not hold is a lost session (a new one starts)', () => {
    expect(isLostSession({ resumed: true, result: null, stderr: `No message found with message.uuid of: ${M1}` })).toBe(true);
  });

  it("finds a conversation's file by id under the config folder, never a link", () => {
    const home = tempDir('fd-conv-home-');
    try {
      const dir = join(home.path, '.claude/projects/-some-folder');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${C1}.jsonl`), '{}\n');
      expect(conversationFile({ HOME: home.path }, C1)).toBe(join(dir, `${C1}.jsonl`));
      expect(conversationFile({ HOME: home.path }, M1)).toBeNull();
      expect(conversationFile({ HOME: home.path }, '../x')).toBeNull();
      symlinkSync(join(dir, `${C1}.jsonl`), join(dir, `${M1}.jsonl`));
      expect(conversationFile({ HOME: home.path }, M1)).toBeNull();
      expect(conversationFile({ HOME: home.path, CLAUDE_CONFIG_DIR: join(home.path, 'elsewhere') }, C1)).toBeNull();
    } finally {
      home.cleanup();
    }
  });

  it('replays the transcript before the new message, keeping the newest part when it is long', () => {
    const msg = (role: StoredMessage['role'], blocks: StoredMessage['blocks'], kind: StoredMessage['kind'] = 'chat') => ({ id: 'm', sessionId: 's', turnId: 't', ord: 1, role, kind, blocks, createdAt: 0 }) as unknown as StoredMessage;
    const p = replayPrompt(
      [msg('user', [{ type: 'text', text: 'first ask' }]), msg('assistant', [{ type: 'tool_use', id: 'x', name: 'write', input: { path: 'a.txt' } }]), msg('tool', [{ type: 'tool_result', tool_use_id: 'x', content: 'ok' }]), msg('assistant', [{ type: 'text', text: 'done' }]), msg('assistant', [{ type: 'text', text: 'internal' }], 'note')],
      'new ask',
    );
    expect(p).toContain('User: first ask');
    expect(p).toContain('Assistant called write {"path":"a.txt"}');
    expect(p).toContain('Tool result: ok');
    expect(p).toContain('Assistant: done');
    expect(p).not.toContain('internal');
    expect(p.endsWith("The user's new message:\nnew ask")).toBe(true);
    expect(replayPrompt([], 'only')).toBe('only');
    const long = replayPrompt(Array.from({ length: 200 }, (_, i) => msg('user', [{ type: 'text', text: `${i} ${'x'.repeat(3_000)}` }])), 'n');
    expect(long.length).toBeLessThan(REPLAY_MAX_CHARS + 1_000);
    expect(long).toContain('earlier lines left out');
    expect(long).toContain('User: 199 ');
    expect(long).not.toContain('User: 0 ');
  });
});

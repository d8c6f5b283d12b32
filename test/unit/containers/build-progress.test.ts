import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyBuildMessage, emptyProgress, JsonLines } from '../../../src-main/containers/core/build-progress';

describe('build progress', () => {
  it('follows steps, log lines, the image id and errors', () => {
    let p = emptyProgress();
    for (const m of [{ stream: 'Step 1/4 : FROM x\n' }, { stream: ' ---> abc\n' }, { stream: 'Step 3/4 : RUN make\n' }, { status: 'Downloading', progress: '[==>  ]' }, { aux: { ID: 'sha256:1' } }, 'garbage', null, { stream: '\n' }]) p = applyBuildMessage(p, m);
    expect(p).toEqual({ step: 3, steps: 4, fraction: 0.5, line: 'Downloading [==>  ]', imageId: 'sha256:1', error: null });
    expect(applyBuildMessage(p, { errorDetail: { message: 'returned a non-zero code: 7' }, error: 'x' }).error).toBe('returned a non-zero code: 7');
    expect(applyBuildMessage(p, { error: 'only error' }).error).toBe('only error');
  });

  it('splits JSON lines across chunks and keeps garbled lines as text', () => {
    const j = new JsonLines();
    expect(j.push('{"stream":"a"}\n{"str')).toEqual([{ stream: 'a' }]);
    expect(j.push('eam":"b"}\nnot json\n\n')).toEqual([{ stream: 'b' }, { stream: 'not json' }]);
  });
});

describe('the agent Dockerfile', () => {
  const text = readFileSync(join(__dirname, '../../../resources/docker/agent/Dockerfile'), 'utf8');
  it('is the seed runtime: CUDA 12.1 base, Node, claude CLI, git, python3, build tools, non-root agent with the host ids', () => {
    expect(text).toMatch(/^FROM nvidia\/cuda:12\.1[.0-9]*-runtime-ubuntu/m);
    expect(text).toMatch(/^ARG AGENT_UID=/m);
    expect(text).toMatch(/^ARG AGENT_GID=/m);
    for (const pkg of ['git', 'python3', 'build-essential', 'nodejs', '@anthropic-ai/claude-code']) expect(text).toContain(pkg);
    expect(text).toMatch(/^USER \$\{AGENT_UID\}:\$\{AGENT_GID\}$/m);
    expect(text).toContain('/app/volumes/workspace');
  });
});

import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { baseImageMissing, containerInRefusal, dockerfileBases, imageInUse } from '../../../src-main/containers/core/images';
import type { Engine } from '../../../src-main/containers/engines';
import { removeImage } from '../../../src-main/containers/images';

describe('dockerfileBases', () => {
  it('names each base image once, without scratch, earlier stages or build-argument references', () => {
    const df = [
      '# syntax=docker/dockerfile:1',
      'ARG BASE=debian:12',
      'FROM --platform=linux/amd64 nvidia/cuda:12.1.1-runtime-ubuntu22.04 AS build',
      'RUN make',
      'from build as test',
      'FROM $BASE',
      'FROM scratch',
      'FROM \\',
      '  busybox:1.36',
      'FROM nvidia/cuda:12.1.1-runtime-ubuntu22.04',
      'COPY --from=build /out /out',
    ].join('\n');
    expect(dockerfileBases(df)).toEqual(['nvidia/cuda:12.1.1-runtime-ubuntu22.04', 'busybox:1.36']);
  });

  it('skips heredoc bodies and comments inside continuations, and honours the escape directive', () => {
    const df = [
      '# escape=`',
      'FROM debian:12 AS base',
      'RUN <<EOF cat > /etc/motd && <<-"END" sh',
      'FROM not-an-image:1',
      'EOF',
      '\tFROM nor-this:2',
      '\tEND',
      'RUN echo `',
      '# FROM a-comment:3',
      '  done',
      'FROM `',
      '  busybox:1.36',
      'COPY <<EOF /x',
      'FROM inside:4',
      'EOF',
      'FROM alpine:3.20',
    ].join('\n');
    expect(dockerfileBases(df)).toEqual(['debian:12', 'busybox:1.36', 'alpine:3.20']);
  });

  it('opens a heredoc only where BuildKit does: a whole <<WORD of RUN, COPY or ADD, outside quotes', () => {
    const df = [
      'FROM a:1',
      'RUN cat <<<"here-string"',
      'RUN echo "use <<EOF"',
      "LABEL note=\"a<<b\"",
      'RUN echo $((1<<BITS))',
      'CMD ["sh","-c","cat <<EOF"]',
      'run 2<<-ERR cat',
      '\tFROM inside-err:1',
      '\tERR',
      'FROM b:2',
    ].join('\n');
    expect(dockerfileBases(df)).toEqual(['a:1', 'b:2']);
  });
});

describe('image removal refusals', () => {
  it("finds the container in Docker's two wordings", () => {
    expect(containerInRefusal('conflict: unable to remove repository reference "x:y" (must force) - container 8a176bb78ac3 is using its referenced image 4366dd7f5cc4')).toBe('8a176bb78ac3');
    expect(containerInRefusal('conflict: unable to delete 4366dd7f5cc4 (cannot be forced) - image is being used by running container 8a176bb78ac3')).toBe('8a176bb78ac3');
    expect(containerInRefusal('conflict: unable to delete 4366dd7f5cc4 (must be forced) - image is referenced in multiple repositories')).toBeNull();
  });

  it("names the container, its state and session, and what to do", () => {
    const e = imageInUse('fd:1', 'local (unix:///var/run/docker.sock)', { id: 'abc', name: 'flightdeck-ses_1', running: true, sessionId: 'ses_1' }, 'conflict …');
    expect(e).toBeInstanceOf(AppError);
    expect(e.code).toBe('conflict');
    expect(e.details?.reason).toBe('image_in_use');
    expect(e.message).toBe('The image fd:1 is in use by the running container flightdeck-ses_1 (session ses_1) on local (unix:///var/run/docker.sock): remove that container first (Containers view), then retry.');
    expect(imageInUse('fd:1', 'local', { id: 'abc', name: 'web', running: false, sessionId: null }, '').message).toMatch(/stopped container web on local: remove that container first \(docker rm web\)/);
  });

  it('a missing base image says which one and how to pull it', () => {
    const e = baseImageMissing(['nvidia/cuda:12.1.1-runtime-ubuntu22.04'], 'local');
    expect(e.details?.reason).toBe('base_image_missing');
    expect(e.message).toMatch(/^The base image nvidia\/cuda:12\.1\.1-runtime-ubuntu22\.04 is not on local\. Flightdeck never pulls .*docker pull nvidia\/cuda:12\.1\.1-runtime-ubuntu22\.04/);
  });
});

describe('removeImage', () => {
  it('refuses a reference that would reach another endpoint of the engine, before any call', async () => {
    let calls = 0;
    const engine = { call: async () => void calls++, label: 'local' } as unknown as Engine;
    for (const ref of ['x/../../containers/0123456789ab', '../version', 'a?force=1', 'a#b', 'a b', '', 'a//b', './a']) {
      await expect(removeImage(engine, ref), ref).rejects.toMatchObject({ code: 'invalid_input', details: { reason: 'bad_image_ref' } });
    }
    expect(calls).toBe(0);
    for (const ref of ['flightdeck-agent:latest', 'localhost:5000/team/img:1.2', 'sha256:0123abcd', '0123456789ab', 'nvidia/cuda:12.1.1-runtime-ubuntu22.04', 'img@sha256:0123abcd']) await removeImage(engine, ref);
    expect(calls).toBe(6);
  });
});

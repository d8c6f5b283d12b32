import { describe, expect, it } from 'vitest';
import { containerEnv } from '../../../src-main/containers/container-runner';

describe("a container command's environment", () => {
  it("keeps what means the same inside (locale, pager, NO_COLOR, CI) and drops the host's paths and FORCE_COLOR", () => {
    const env = containerEnv({ LANG: 'C.UTF-8', PAGER: 'cat', NO_COLOR: '1', CI: 'true', FORCE_COLOR: '1', PATH: '/host/bin', HOME: '/home/me' });
    expect(env).toEqual({ LANG: 'C.UTF-8', PAGER: 'cat', NO_COLOR: '1', CI: 'true' });
  });
});

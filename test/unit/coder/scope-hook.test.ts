import { describe, expect, it } from 'vitest';
import { classifyAttempt, type AttemptOutcome } from '../../../src-main/coder/core/classify';
import { scopeVerdict } from '../../../src-main/coder/core/hook-policy';

const scope = { allowed: ['src/**'], forbidden: ['src/legacy/**'] };

describe('the contract scope before a file change', () => {
  it('refuses out-of-scope and not-allowed paths for file-changing tools, with the reason and the scope', () => {
    const v = scopeVerdict(scope, '/w', 'Write', ['/w/src/legacy/a.js']);
    expect(v).toMatchObject({ allow: false });
    expect(v!.reason).toContain('src/legacy/a.js is out of scope (src/legacy/**)');
    expect(v!.reason).toContain('Allowed paths: src/**. Out of scope: src/legacy/**.');
    expect(scopeVerdict(scope, '/w', 'Edit', ['/w/README.md'])!.reason).toContain('README.md is not in the allowed paths');
    expect(scopeVerdict(scope, '/w', 'Write', ['/elsewhere/x'])!.reason).toContain('is outside cd');
  });

  it('lets in-scope writes, reads and commands through to the next check; no contract, no opinion', () => {
    expect(scopeVerdict(scope, '/w', 'Write', ['/w/src/new.js'])).toBeNull();
    expect(scopeVerdict(scope, '/w/', 'MultiEdit', ['/w/src/a.js'])).toBeNull();
    expect(scopeVerdict(scope, '/w', 'Read', ['/w/src/legacy/a.js'])).toBeNull();
    expect(scopeVerdict(scope, '/w', 'Bash', [])).toBeNull();
    expect(scopeVerdict(null, '/w', 'Write', ['/w/x'])).toBeNull();
    expect(scopeVerdict({ allowed: [], forbidden: [] }, '/w', 'Write', ['/w/x'])).toBeNull();
  });
});

describe("Claude Code's sandbox refusing to start", () => {
  it('is a config_error that says commands were refused, not an upstream error to retry', () => {
    const o: AttemptOutcome = {
      spawnError: null,
      killedFor: null,
      exitCode: 1,
      signal: null,
      sessionId: 'x',
      resumed: false,
      decodeErrors: 0,
      stderr: '',
      result: {
        subtype: 'error_during_execution',
        isError: true,
        result: null,
        errors: ['Sandbox required but unavailable: sandbox is enabled but dependencies are missing: bubblewrap (bwrap) not installed · install missing tools'],
      } as never,
    };
    const v = classifyAttempt(o, { idleTimeoutS: 300, maxDurationS: 1800 });
    expect(v).toMatchObject({ ok: false, kind: 'config_error', retryable: false });
    if (v.ok) throw new Error('unreachable');
    expect(v.message).toBe(
      "Not run: Claude Code's sandbox could not start (sandbox is enabled but dependencies are missing: bubblewrap (bwrap) not installed). Commands are refused rather than run unconfined. Install bubblewrap and socat (Linux), or choose danger-full-access if you accept unconfined commands.",
    );
  });
});

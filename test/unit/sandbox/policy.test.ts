import { describe, expect, it } from 'vitest';
import { bwrapArgs, claudeSandboxSettings, execLine, seatbeltProfile, sessionSandboxPolicy, shellQuote, type SandboxPolicy } from '../../../src-main/sandbox/policy';

const ww: SandboxPolicy = { mode: 'workspace-write', root: '/work/repo', network: { mode: 'on', allowedDomains: [] } };

describe('bubblewrap arguments', () => {
  it('workspace-write: all read-only, the root writable after the private /tmp, .git read-only again', () => {
    const a = bwrapArgs(ww, '/work/repo/sub');
    const s = a.join(' ');
    expect(s).toContain('--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /run --ro-bind-try /run/systemd/resolve /run/systemd/resolve --ro-bind-try /run/resolvconf /run/resolvconf --bind /work/repo /work/repo --ro-bind-try /work/repo/.git /work/repo/.git');
    expect(a).toContain('--die-with-parent');
    expect(a).toContain('--unshare-pid');
    // The runner's process-group signals must reach the command (graceful cancel).
    expect(a).not.toContain('--new-session');
    expect(a).not.toContain('--unshare-net');
    expect(a.slice(-3)).toEqual(['--chdir', '/work/repo/sub', '--']);
  });

  it('nested git folders given as readOnly are bound read-only after the root; paths outside the root are ignored', () => {
    const a = bwrapArgs({ ...ww, readOnly: ['/work/repo/svc/.git', '/elsewhere/.git'] }, '/work/repo').join(' ');
    expect(a).toContain('--bind /work/repo /work/repo --ro-bind-try /work/repo/.git /work/repo/.git --ro-bind-try /work/repo/svc/.git /work/repo/svc/.git');
    expect(a).not.toContain('/elsewhere');
  });

  it("a linked worktree's git data: the common dir read-only, then what a commit writes, then its protected files; read-only mode binds only the common dir", () => {
    const git = { readOnly: ['/work/repo/.git'], writable: ['/work/repo/.git/objects', '/work/repo/.git/worktrees/s'], protect: ['/work/repo/.git/worktrees/s/HEAD'], otherRefs: ['/work/repo/.git/refs/heads/feature/t'] };
    const a = bwrapArgs({ ...ww, root: '/work/repo/.trees/s', git }, '/work/repo/.trees/s').join(' ');
    expect(a).toContain('--ro-bind-try /work/repo/.trees/s/.git /work/repo/.trees/s/.git --ro-bind /work/repo/.git /work/repo/.git --bind /work/repo/.git/objects /work/repo/.git/objects --bind /work/repo/.git/worktrees/s /work/repo/.git/worktrees/s --ro-bind /work/repo/.git/worktrees/s/HEAD /work/repo/.git/worktrees/s/HEAD --ro-bind-try /work/repo/.git/refs/heads/feature/t /work/repo/.git/refs/heads/feature/t');
    const r = bwrapArgs({ ...ww, mode: 'read-only', root: '/work/repo/.trees/s', git }, '/work/repo/.trees/s').join(' ');
    expect(r).toContain('--ro-bind /work/repo/.git /work/repo/.git');
    expect(r).not.toContain('--bind /work/repo/.git/objects');
    expect(r).not.toContain('refs/heads/feature/t');
  });

  it('read-only binds the root read-only; no network unless it is on (allow-list included)', () => {
    const a = bwrapArgs({ ...ww, mode: 'read-only', network: { mode: 'off', allowedDomains: [] } }, '/work/repo').join(' ');
    expect(a).toContain('--ro-bind /work/repo /work/repo');
    expect(a).not.toContain('--bind /work/repo');
    expect(a).toContain('--unshare-net');
    expect(bwrapArgs({ ...ww, network: { mode: 'allow-list', allowedDomains: ['example.com'] } }, '/work/repo')).toContain('--unshare-net');
  });

  it('hides the data folder (tmpfs) and key files (/dev/null), but never a folder holding the root', () => {
    const a = bwrapArgs({ ...ww, hidden: [{ path: '/home/me/.fd', kind: 'dir' }, { path: '/home/me/.fd/secrets.json', kind: 'file' }, { path: '/work', kind: 'dir' }] }, '/work/repo').join(' ');
    expect(a).toContain('--tmpfs /home/me/.fd --ro-bind /dev/null /home/me/.fd/secrets.json --setenv');
    expect(a).not.toContain('--tmpfs /work ');
    const sb = seatbeltProfile({ ...ww, hidden: [{ path: '/Users/me/fd', kind: 'dir' }] }, { tempDirs: [] });
    expect(sb).toContain('(deny file-read* file-write*\n  (subpath "/Users/me/fd"))');
    expect(claudeSandboxSettings({ ...ww, hidden: [{ path: '/home/me/.fd', kind: 'dir' }] }, { secretDirs: [], secretEnv: [] })!.filesystem).toMatchObject({ denyRead: ['/home/me/.fd'] });
  });

  it('full access has no bubblewrap form', () => {
    expect(() => bwrapArgs({ ...ww, mode: 'danger-full-access' }, '/')).toThrow();
  });
});

describe('Seatbelt profile (macOS)', () => {
  it('workspace-write: writes denied except the root, temp folders and devices; .git denied after', () => {
    const p = seatbeltProfile({ ...ww, root: '/Users/a/my "repo"' }, { tempDirs: ['/private/tmp', '/private/var/folders/xy/T'] });
    expect(p).toBe(
      [
        '(version 1)',
        '(allow default)',
        '(deny file-write*)',
        '(allow file-write*',
        '  (subpath "/Users/a/my \\"repo\\"")',
        '  (subpath "/private/tmp")',
        '  (subpath "/private/var/folders/xy/T")',
        '  (literal "/dev/null")',
        '  (literal "/dev/zero")',
        '  (literal "/dev/dtracehelper")',
        '  (regex #"^/dev/tty")',
        '  (regex #"^/dev/fd/")',
        ')',
        '(deny file-write*',
        '  (subpath "/Users/a/my \\"repo\\"/.git"))',
        '',
      ].join('\n').replace('(regex #"^/dev/fd/")\n)', '(regex #"^/dev/fd/"))'),
    );
  });

  it('read-only without network: no root write rule, network denied but local sockets', () => {
    const p = seatbeltProfile({ ...ww, mode: 'read-only', network: { mode: 'off', allowedDomains: [] } }, { tempDirs: ['/private/tmp'] });
    expect(p).not.toContain('/work/repo');
    expect(p).toContain('(deny network*)\n(allow network* (remote unix-socket))\n(allow network* (local unix-socket))');
  });
});

describe("Claude Code's sandbox settings", () => {
  const secrets = { secretDirs: ['/tmp/fd-coder-x', '/tmp/fd-coder-*'], secretEnv: ['ANTHROPIC_API_KEY'] };
  it('workspace-write: on, fail if unavailable, no escape hatch, .git protected, secrets unreadable', () => {
    expect(claudeSandboxSettings(ww, secrets)).toEqual({
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      autoAllowBashIfSandboxed: false,
      network: { allowedDomains: ['*'] },
      filesystem: { denyWrite: ['/work/repo/.git'], denyRead: ['/tmp/fd-coder-x', '/tmp/fd-coder-*'] },
      credentials: { files: [{ path: '/tmp/fd-coder-x', mode: 'deny' }], envVars: [{ name: 'ANTHROPIC_API_KEY', mode: 'deny' }] },
    });
  });

  it('read-only denies writing the root; network off and allow-list map to domain lists; full access has none', () => {
    const ro = claudeSandboxSettings({ ...ww, mode: 'read-only', network: { mode: 'off', allowedDomains: [] } }, secrets)!;
    expect(ro.filesystem).toMatchObject({ denyWrite: ['/work/repo'] });
    expect(ro.network).toEqual({ allowedDomains: [] });
    const al = claudeSandboxSettings({ ...ww, network: { mode: 'allow-list', allowedDomains: ['registry.npmjs.org', '*.github.com'] } }, secrets)!;
    expect(al.network).toEqual({ allowedDomains: ['registry.npmjs.org', '*.github.com'] });
    expect(claudeSandboxSettings({ ...ww, mode: 'danger-full-access' }, secrets)).toBeNull();
  });
});

describe('command lines and session policy', () => {
  it('quotes every argument so the shell reading the line runs exactly the argv', () => {
    expect(shellQuote('plain/path-1.txt')).toBe('plain/path-1.txt');
    expect(shellQuote("it's $HOME `x`")).toBe("'it'\\''s $HOME `x`'");
    expect(execLine(['bwrap', '--', 'bash', '-c', 'echo "a b" && rm x'])).toBe(`exec bwrap -- bash -c 'echo "a b" && rm x'`);
  });

  it('plan mode runs commands read-only whatever the session chose; default is workspace-write', () => {
    const net = { sandboxNetwork: 'off' as const, sandboxAllowedDomains: [] };
    expect(sessionSandboxPolicy({ root: '/r', mode: 'plan', sandbox: 'danger-full-access' }, net).mode).toBe('read-only');
    expect(sessionSandboxPolicy({ root: '/r', mode: 'yolo' }, net)).toEqual({ mode: 'workspace-write', root: '/r', network: { mode: 'off', allowedDomains: [] } });
    expect(sessionSandboxPolicy({ root: '/r', mode: 'default', sandbox: 'danger-full-access' }, net).mode).toBe('danger-full-access');
  });
});

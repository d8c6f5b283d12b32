import { describe, expect, it } from 'vitest';
import { compareUrl, parseRemoteUrl } from '../../../src-main/git/forge';

describe('remote URLs', () => {
  it('reads the URL forms git accepts, with the forge the host names', () => {
    expect(parseRemoteUrl('git@github.com:acme/widgets.git')).toEqual({ host: 'github.com', path: 'acme/widgets', forge: 'github' });
    expect(parseRemoteUrl('https://github.com/acme/widgets')).toEqual({ host: 'github.com', path: 'acme/widgets', forge: 'github' });
    // GitHub Enterprise: user info and the port dropped, a trailing slash after .git tolerated.
    expect(parseRemoteUrl('https://user@github.example.com:8443/team/app.git/')).toEqual({ host: 'github.example.com', path: 'team/app', forge: 'github' });
    expect(parseRemoteUrl('ssh://git@gitlab.com/group/sub/project.git')).toEqual({ host: 'gitlab.com', path: 'group/sub/project', forge: 'gitlab' });
    expect(parseRemoteUrl('ssh://git@GitLab.Example.com:2222/g/sub/r.git')).toEqual({ host: 'gitlab.example.com', path: 'g/sub/r', forge: 'gitlab' });
    expect(parseRemoteUrl('git@bitbucket.org:team/app.git')).toEqual({ host: 'bitbucket.org', path: 'team/app', forge: 'bitbucket' });
    expect(parseRemoteUrl('https://codeberg.org/o/r.git')).toEqual({ host: 'codeberg.org', path: 'o/r', forge: 'gitea' });
    expect(parseRemoteUrl('git://forgejo.example.net/o/r')).toEqual({ host: 'forgejo.example.net', path: 'o/r', forge: 'gitea' });
    expect(parseRemoteUrl('https://git.example.com/o/r.git')).toEqual({ host: 'git.example.com', path: 'o/r', forge: null });
    for (const local of ['/srv/git/app.git', '../origin', 'file:///srv/git/app.git', 'C:\\repos\\app', 'C:/repos/app', '', 'not a url', 'https://example.com/single']) {
      expect(parseRemoteUrl(local), local).toBeNull();
    }
  });
});

describe('compare URLs', () => {
  it("builds GitHub's compare page with readable branch slashes (GitHub Enterprise too)", () => {
    expect(compareUrl('git@github.com:acme/widgets.git', 'main', 'feature/session-1')).toBe('https://github.com/acme/widgets/compare/main...feature/session-1?expand=1');
    expect(compareUrl('https://github.com/acme/widgets.git', 'release/2.0', 'feature/a#b')).toBe('https://github.com/acme/widgets/compare/release/2.0...feature/a%23b?expand=1');
    expect(compareUrl('ssh://git@github.acme.corp:22/team/app.git', 'main', 'x')).toBe('https://github.acme.corp/team/app/compare/main...x?expand=1');
  });

  it("builds GitLab's new merge request page (also for a group path)", () => {
    expect(compareUrl('git@gitlab.com:group/app.git', 'main', 'feature/x')).toBe('https://gitlab.com/group/app/-/merge_requests/new?merge_request%5Bsource_branch%5D=feature%2Fx&merge_request%5Btarget_branch%5D=main');
    expect(compareUrl('ssh://git@gitlab.example.com:2222/g/sub/r.git', 'dev', 'fix')).toBe('https://gitlab.example.com/g/sub/r/-/merge_requests/new?merge_request%5Bsource_branch%5D=fix&merge_request%5Btarget_branch%5D=dev');
  });

  it("builds Bitbucket's new pull request page and Gitea/Forgejo/Codeberg's compare page", () => {
    expect(compareUrl('https://bitbucket.org/team/app.git', 'main', 'feature/x')).toBe('https://bitbucket.org/team/app/pull-requests/new?source=feature%2Fx&dest=main');
    expect(compareUrl('https://codeberg.org/o/r.git', 'main', 'feature/x')).toBe('https://codeberg.org/o/r/compare/main...feature/x');
    expect(compareUrl('git@gitea.example.org:o/r.git', 'main', 'a b')).toBe('https://gitea.example.org/o/r/compare/main...a%20b');
  });

  it('gives nothing for a local remote or a host whose forge is unknown', () => {
    expect(compareUrl('/tmp/origin.git', 'main', 'feature/x')).toBeNull();
    expect(compareUrl('file:///tmp/origin.git', 'main', 'feature/x')).toBeNull();
    expect(compareUrl('https://example.com/single', 'main', 'feature/x')).toBeNull();
    expect(compareUrl('https://git.example.com/o/r.git', 'main', 'x')).toBeNull();
  });
});

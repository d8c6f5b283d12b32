import { describe, expect, it } from 'vitest';
import { checkHardFloor } from '../../../src-main/agents/policy/hard-floor';

const blocked = (cmd: string, ctx = {}) => checkHardFloor(cmd, ctx).blocked;

describe('hard floor: blocks catastrophic commands', () => {
  it.each([
    'rm -rf /',
    'rm -rf /*',
    'rm -fr /',
    'rm -r -f /',
    'rm -Rf /',
    'rm --recursive --force /',
    'rm -rf //',
    'rm -rf /.',
    'rm -rf ~',
    'rm -rf ~/',
    'rm -rf ~/*',
    'rm -rf $HOME',
    'rm -rf "$HOME"',
    'rm -rf ${HOME}/',
    'rm -rf /home',
    'rm -rf /usr',
    'rm -rf /etc/',
    'rm -rf --no-preserve-root /',
    'rm --no-preserve-root -r /tmp/x',
    'sudo rm -rf /',
    'sudo -u root rm -rf /',
    'env FOO=1 rm -rf /',
    'FOO=1 rm -rf ~',
    'cd /tmp && rm -rf /',
    'ls; rm -rf /',
    'true || rm -rf ~',
    'echo $(rm -rf /)',
    'echo `rm -rf ~`',
    "bash -c 'rm -rf /'",
    'sh -c "rm -rf ~"',
    "eval 'rm -rf /'",
    '/bin/rm -rf /',
    'timeout 5 rm -rf /',
    'mkfs /dev/sda1',
    'mkfs.ext4 /dev/sdb',
    'sudo mkfs.xfs -f /dev/nvme0n1p1',
    'mke2fs /dev/sdc',
    'wipefs -a /dev/sda',
    'dd if=/dev/zero of=/dev/sda',
    'dd if=image.iso of=/dev/nvme0n1 bs=4M',
    'sudo dd if=/dev/urandom of=/dev/mmcblk0',
    'cat image > /dev/sda',
    'echo x >/dev/sdb1',
    ':(){ :|:& };:',
    ':(){ :|: & };:',
    'bomb() { bomb | bomb & }; bomb',
    'perl -e "fork while fork"',
    'chmod -R 777 /',
    'chmod 777 -R /',
    'sudo chmod -R 777 /*',
    'chmod --recursive a+rwx /',
    'chown -R nobody /',
    'chmod -R 000 ~',
    'git push --force origin main',
    'git push -f origin master',
    'git push origin +main',
    'git push origin +HEAD:main',
    'git push --force origin HEAD:refs/heads/main',
    'git push --force-with-lease origin main',
    'git -C repo push -f origin main',
    'git push origin :main',
    'git push origin --delete main',
    'git push --mirror --force',
    'psql -c "DROP DATABASE prod"',
    'mysql -e "drop   database app"',
    'echo "DROP DATABASE x;" | psql',
    'dropdb production',
    'find / -delete',
  ])('%s', (cmd) => {
    expect(blocked(cmd)).toBe(true);
    expect(checkHardFloor(cmd).reason).toBeTruthy();
  });

  it('a bare force push is blocked on a base branch or when the branch is unknown', () => {
    expect(blocked('git push -f')).toBe(true);
    expect(blocked('git push --force origin', { currentBranch: 'main' })).toBe(true);
    expect(blocked('git push --force origin HEAD', { currentBranch: 'master' })).toBe(true);
    expect(blocked('git push -f origin', { currentBranch: 'feature/x' })).toBe(false);
  });

  it('honours configured base branches', () => {
    expect(blocked('git push -f origin develop', { baseBranches: ['develop'] })).toBe(true);
    expect(blocked('git push -f origin main', { baseBranches: ['develop'] })).toBe(false);
  });
});

describe('hard floor: lets ordinary commands through', () => {
  it.each([
    'rm -rf node_modules',
    'rm -rf ./build',
    'rm -rf dist/ coverage/',
    'rm -rf ~/project/tmp',
    'rm -rf /tmp/fd-test-123',
    'rm file.txt',
    'rm -f /',
    'ls -la /',
    'cat /etc/hostname',
    'dd if=/dev/zero of=./disk.img bs=1M count=10',
    'dd if=/dev/sda of=backup.img',
    'echo x > /dev/null',
    'npm test 2>&1',
    'chmod -R 755 ./scripts',
    'chmod 777 /tmp/x',
    'chmod -R 777 build',
    'git push origin main',
    'git push -f origin feature/login',
    'git push --force origin HEAD:feature/x',
    'git push origin feature:feature',
    'grep -r "DROP DATABASE" migrations/',
    'echo "remember: never DROP DATABASE in prod"',
    'rg "rm -rf /" docs',
    'find . -name "*.tmp" -delete',
    'mkdir -p build && cp -r src build/',
    'echo "rm -rf /"',
    "git commit -m 'rm -rf / is bad'",
  ])('%s', (cmd) => {
    expect(checkHardFloor(cmd, { currentBranch: 'feature/x' })).toEqual({ blocked: false, reason: null });
  });
});

describe('hard floor: climbing out with ..', () => {
  it.each(['rm -rf ../..', 'rm -rf ../../*', 'rm -rf /usr/..', 'rm -rf ~/code/..', 'rm -r ../../..'])('%s is blocked', (cmd) => {
    expect(checkHardFloor(cmd).blocked).toBe(true);
  });
  it.each(['rm -rf ../sibling-build', 'rm -rf ./dist', 'rm -rf node_modules'])('%s is not', (cmd) => {
    expect(checkHardFloor(cmd).blocked).toBe(false);
  });
});

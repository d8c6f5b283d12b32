import { describe, expect, it } from 'vitest';
import { checkRoleGuard } from '../../../src-main/agents/policy/role-guard';
import { decideTool } from '../../../src-main/agents/policy/policy';

describe("the Coder role's guard (seed 003's PreToolUse block list)", () => {
  it.each([
    ['rm -rf /', /rm/],
    ['git push --force origin feature/x', /force/],
    ['git push -f', /force/],
    ['git push origin +feature/x', /force/],
    ['git push --force-with-lease origin HEAD', /force/],
    ['psql -c "DROP TABLE users"', /DROP TABLE/],
    ['echo "drop table t;" | sqlite3 app.db', /DROP TABLE/],
    ['psql -c "DROP DATABASE prod"', /DROP DATABASE/],
    ['mkfs.ext4 /dev/sdb1', /mkfs/],
    ['dd if=/dev/zero of=/dev/sda bs=1M', /dd onto/],
    ['echo x > /dev/sda', /device/],
    ['chmod -R 777 /', /chmod/],
    [':(){ :|:& };:', /fork bomb/],
  ])('blocks %s', (cmd, reason) => {
    const v = checkRoleGuard(cmd);
    expect(v.blocked).toBe(true);
    expect(v.reason).toMatch(reason);
  });

  it.each(['git push origin feature/x', 'git push -u origin HEAD', 'rm -rf build', 'grep -r "DROP TABLE" migrations/', 'npm test', 'chmod +x run.sh'])('lets %s through', (cmd) => {
    expect(checkRoleGuard(cmd).blocked).toBe(false);
  });

  it('applies in yolo mode with the hard floor switched off, and only to Coder sessions', () => {
    const base = { tool: 'bash', input: { command: 'git push --force origin feature/x' }, mode: 'yolo' as const, preset: 'balanced' as const, disabledTools: [], hardFloor: false, sessionRules: [] };
    expect(decideTool({ ...base, roleGuard: true })).toMatchObject({ decision: 'deny', source: 'role_guard' });
    expect(decideTool(base)).toMatchObject({ decision: 'allow', source: 'yolo' });
  });
});

import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { FEATURE_ERROR_KINDS, FeatureError, ioError, isFeatureError } from '../../../src-main/features/errors';

describe('features error taxonomy', () => {
  it('has the eight kinds', () => {
    expect([...FEATURE_ERROR_KINDS]).toEqual(['agent', 'prompt', 'io', 'config', 'state', 'plan', 'git', 'yaml']);
  });

  it('puts path and line in front of the message, and keeps the bare detail', () => {
    const e = new FeatureError('state', 'status: bad', { path: '/r/state.yml', line: 5 });
    expect(e.message).toBe('/r/state.yml:5: status: bad');
    expect(e.detail).toBe('status: bad');
    expect(new FeatureError('git', 'push rejected').message).toBe('push rejected');
    expect(new FeatureError('io', 'gone', { path: '/x' }).message).toBe('/x: gone');
    expect(isFeatureError(e)).toBe(true);
    expect(isFeatureError(new Error('x'))).toBe(false);
  });

  it('converts every kind to an AppError with the kind in the message and details', () => {
    for (const kind of FEATURE_ERROR_KINDS) {
      const app = new FeatureError(kind, 'went wrong', { path: '/p', line: 2 }).toAppError();
      expect(app).toBeInstanceOf(AppError);
      expect(app.message).toBe(`${kind} error: /p:2: went wrong`);
      expect(app.details).toEqual({ kind, path: '/p', line: 2 });
      expect(app.toShape().code).toBe(app.code);
    }
    expect(new FeatureError('config', 'x').toAppError().code).toBe('invalid_input');
    expect(new FeatureError('git', 'x').toAppError().details).toEqual({ kind: 'git' });
  });

  it('maps io errnos to the codes the user can act on', () => {
    const errno = (code: string) => Object.assign(new Error(code), { code });
    expect(ioError('/a', 'read', errno('ENOENT')).toAppError().code).toBe('not_found');
    expect(ioError('/a', 'read', errno('EACCES')).toAppError().code).toBe('permission_denied');
    expect(ioError('/a', 'write', errno('ENOSPC')).toAppError().code).toBe('disk_full');
    expect(ioError('/a', 'read', errno('EIO')).toAppError().code).toBe('internal');
    expect(ioError('/a', 'read', errno('EIO')).message).toBe('/a: could not read: EIO');
  });
});

import { randomBytes } from 'node:crypto';

/**
 * Ids sortable by creation time (base-36 milliseconds first) with 48 random bits, so two
 * processes writing the same database never collide. Shapes match the contract's regexes.
 */
export function newId(prefix: 'ses' | 'turn' | 'apr' | 'msg' | 'tool'): string {
  return `${prefix}-${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;
}

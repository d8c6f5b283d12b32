import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appRoot } from '../platform/paths';

let cached: string | undefined;
export function appVersion(): string {
  if (cached === undefined) {
    try {
      cached = (JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      cached = '0.0.0';
    }
  }
  return cached;
}

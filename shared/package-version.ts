import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let found: string | undefined;

/**
 * The version of the installed kubescribe: package.json at the package root, found above this
 * module whether it runs from the sources, from dist/, or from the deployed zip (where package.json
 * sits beside dist/).
 */
export function packageVersion(): string {
  if (found) return found;
  for (const up of [['..'], ['..', '..']]) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, ...up, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'kubescribe' && pkg.version) {
        found = pkg.version;
        return found;
      }
    } catch {
      // not at this level: look one higher
    }
  }
  return 'unknown';
}

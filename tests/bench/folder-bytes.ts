import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The bytes of every file below `folder`: a store's size on disk. */
export function folderBytes(folder: string): number {
  let total = 0;
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const stat = statSync(path);
    total += stat.isDirectory() ? folderBytes(path) : stat.size;
  }
  return total;
}

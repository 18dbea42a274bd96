import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';

/** Where each scope's cursor (the last resourceVersion kubescribe acknowledged) is kept. */
export interface CursorStore {
  read(key: string): Promise<string | undefined>;
  write(key: string, resourceVersion: string): Promise<void>;
  /** Forgets a cursor (its resourceVersion expired): the scope starts again with a snapshot. */
  clear(key: string): Promise<void>;
}

const cursorFileSchema = z.strictObject({ version: z.literal(1), cursors: z.record(z.string(), z.string()) });

/**
 * Cursors in one JSON file. Each write replaces the file by rename, so a crash leaves the old or
 * the new content, never half of it; writes from concurrent scopes are serialized.
 */
export function fileCursorStore(path: string): CursorStore {
  let cursors: Record<string, string> | undefined;
  let queue: Promise<void> = Promise.resolve();
  const load = async () => {
    if (cursors !== undefined) return cursors;
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    cursors = text === undefined ? {} : cursorFileSchema.parse(JSON.parse(text)).cursors;
    return cursors;
  };
  const save = (change: (all: Record<string, string>) => void) => {
    queue = queue.then(async () => {
      const all = await load();
      change(all);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(`${path}.tmp`, JSON.stringify({ version: 1, cursors: all }, null, 2));
      await rename(`${path}.tmp`, path);
    });
    return queue;
  };
  return {
    read: async (key) => (await load())[key],
    write: (key, resourceVersion) =>
      save((all) => {
        all[key] = resourceVersion;
      }),
    clear: (key) =>
      save((all) => {
        delete all[key];
      }),
  };
}

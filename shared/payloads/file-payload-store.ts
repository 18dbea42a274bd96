import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PayloadNotFound } from './errors';
import { digestOf, type PayloadRef, payloadBytes, payloadRefOf, verifiedPayload } from './payload-ref';
import type { PayloadStore } from './payload-store';

/**
 * A PayloadStore in a local folder: `<folder>/sha256/<2 hex>/<64 hex>`. Each payload is written to
 * a temporary file, flushed to disk, renamed into place and its folder flushed, so a crash leaves
 * either the whole payload or none (a stray `.tmp` file at worst, which is never read).
 * @param folder created on first write.
 */
export function createFilePayloadStore({ folder }: { folder: string }): PayloadStore {
  const pathOf = (digest: string) => join(folder, 'sha256', digest.slice(0, 2), digest);

  return {
    async put(payload) {
      const bytes = payloadBytes(payload);
      const ref = payloadRefOf(bytes);
      const path = pathOf(digestOf(ref));
      if (await exists(path)) return ref;
      const directory = join(path, '..');
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const temporary = join(directory, `.${digestOf(ref)}.${randomUUID()}.tmp`);
      try {
        // cluster objects: readable by kubescribe's user only
        const handle = await open(temporary, 'wx', 0o600);
        try {
          await handle.writeFile(bytes);
          await handle.sync();
        } finally {
          await handle.close();
        }
        // Same bytes under the same name: a concurrent writer's rename is harmless.
        await rename(temporary, path);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
      await syncDirectory(directory);
      return ref;
    },

    async get(ref) {
      const path = pathOf(digestOf(ref));
      let bytes: Buffer;
      try {
        bytes = await readFile(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new PayloadNotFound(ref);
        throw error;
      }
      return verifiedPayload(ref as PayloadRef, bytes);
    },

    async has(ref) {
      return exists(pathOf(digestOf(ref)));
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The rename is durable only once its directory entry is on disk. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

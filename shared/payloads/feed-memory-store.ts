import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerClient } from '@azure/storage-blob';
import type { FeedMemoryStore } from '../app/eventhub/feed-memory';

const KEY = /^[0-9a-f]{64}$/;
function checked(key: string): string {
  if (!KEY.test(key)) throw new TypeError(`feed memory: "${key}" is not a SHA-256 digest`);
  return key;
}

/**
 * The feed memory in a local folder: `<folder>/feed-memory/<2 hex>/<64 hex>`. One process owns the
 * folder (the embedded host's lock), so a compare-and-swap under an in-process lock per key is exact;
 * the tag is the record's text.
 */
export function createFileFeedMemory({ folder }: { folder: string }): FeedMemoryStore {
  const pathOf = (key: string) => join(folder, 'feed-memory', key.slice(0, 2), checked(key));
  const locks = new Map<string, Promise<unknown>>();
  const locked = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const run = (locks.get(key) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    locks.set(key, tail);
    void tail.then(() => {
      if (locks.get(key) === tail) locks.delete(key);
    });
    return run;
  };
  const readText = async (key: string): Promise<string | undefined> => {
    try {
      return await readFile(pathOf(key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  };
  return {
    async read(key) {
      const text = await readText(key);
      return text === undefined ? undefined : { text, tag: text };
    },
    write(key, text, tag) {
      return locked(key, async () => {
        if ((await readText(key)) !== tag) return false;
        const path = pathOf(key);
        await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
        const temporary = `${path}.${randomUUID()}.tmp`;
        // the data folder is kubescribe's alone (docs/configuration.md): so are the memories in it
        await writeFile(temporary, text, { flush: true, mode: 0o600 });
        await rename(temporary, path);
        return true;
      });
    },
  };
}

/** The feed memory in the payloads' Azure Blob container: blob `feed-memory/<64 hex>`, swapped by ETag. */
export function createBlobFeedMemory({ container }: { container: ContainerClient }): FeedMemoryStore {
  const blobOf = (key: string) => container.getBlockBlobClient(`feed-memory/${checked(key)}`);
  return {
    async read(key) {
      try {
        const blob = blobOf(key);
        const properties = await blob.getProperties();
        const text = (
          await blob.downloadToBuffer(0, undefined, { conditions: { ifMatch: properties.etag! } })
        ).toString('utf8');
        return { text, tag: properties.etag! };
      } catch (error) {
        const status = (error as { statusCode?: unknown }).statusCode;
        // 412: replaced between the two calls; the caller's swap will fail and read again.
        if (status === 404) return undefined;
        if (status === 412) return { text: '', tag: '' };
        throw error;
      }
    },
    async write(key, text, tag) {
      try {
        await blobOf(key).upload(text, Buffer.byteLength(text), {
          conditions: tag === undefined ? { ifNoneMatch: '*' } : { ifMatch: tag },
        });
        return true;
      } catch (error) {
        const status = (error as { statusCode?: unknown }).statusCode;
        if (status === 409 || status === 412) return false;
        throw error;
      }
    },
  };
}

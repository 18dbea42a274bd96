import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerClient } from '@azure/storage-blob';

/**
 * Published SOPS files with their wrapped data keys, by the file's Git blob SHA
 * (shared/secrets/key-escrow.ts), beside the payloads. A record never changes (the same file has the same data key), so a write
 * either lands whole or not at all and a repeated one is harmless.
 */
export interface KeyEscrowStore {
  put(name: string, wrapped: string): Promise<void>;
  /** The record, or undefined when none was kept (a file written by hand, or before 0.3.0). */
  get(name: string): Promise<string | undefined>;
}

const NAME = /^[0-9a-f]{40}$/;
function checked(name: string): string {
  if (!NAME.test(name)) throw new TypeError(`key escrow: "${name}" is not a Git blob SHA`);
  return name;
}

/** The key escrow in a local folder: `<folder>/key-escrow/<2 hex>/<40 hex>`. */
export function createFileKeyEscrow({ folder }: { folder: string }): KeyEscrowStore {
  const pathOf = (name: string) => join(folder, 'key-escrow', name.slice(0, 2), checked(name));
  return {
    async put(name, wrapped) {
      const path = pathOf(name);
      await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
      const temporary = `${path}.${randomUUID()}.tmp`;
      await writeFile(temporary, wrapped, { flush: true, mode: 0o600 });
      await rename(temporary, path);
    },
    async get(name) {
      try {
        return await readFile(pathOf(name), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}

/** The key escrow in the payloads' Azure Blob container: blob `key-escrow/<40 hex>`. */
export function createBlobKeyEscrow({ container }: { container: ContainerClient }): KeyEscrowStore {
  const blobOf = (name: string) => container.getBlockBlobClient(`key-escrow/${checked(name)}`);
  return {
    async put(name, wrapped) {
      await blobOf(name).uploadData(Buffer.from(wrapped));
    },
    async get(name) {
      try {
        return (await blobOf(name).downloadToBuffer()).toString('utf8');
      } catch (error) {
        if ((error as { statusCode?: unknown }).statusCode === 404) return undefined;
        throw error;
      }
    },
  };
}

import type { ContainerClient } from '@azure/storage-blob';
import { PayloadNotFound } from './errors';
import { digestOf, type PayloadRef, payloadBytes, payloadRefOf, verifiedPayload } from './payload-ref';
import type { PayloadStore } from './payload-store';

/**
 * A PayloadStore in an Azure Blob Storage container: blob `sha256/<64 hex>`. A blob upload commits
 * whole or not at all, and `If-None-Match: *` keeps the first copy, so repeated puts never rewrite.
 * @param container an authenticated container client (see `openPayloadStore`).
 */
export function createBlobPayloadStore({ container }: { container: ContainerClient }): PayloadStore {
  const blobOf = (ref: string) => container.getBlockBlobClient(`sha256/${digestOf(ref)}`);

  return {
    async put(payload) {
      const bytes = payloadBytes(payload);
      const ref = payloadRefOf(bytes);
      try {
        await blobOf(ref).uploadData(bytes, {
          conditions: { ifNoneMatch: '*' },
          blobHTTPHeaders: { blobContentType: 'application/octet-stream' },
        });
      } catch (error) {
        // 409 BlobAlreadyExists / 412: the same content is already stored under this name.
        if (!isStatus(error, 409) && !isStatus(error, 412)) throw error;
      }
      return ref;
    },

    async get(ref) {
      let bytes: Buffer;
      try {
        bytes = await blobOf(ref).downloadToBuffer();
      } catch (error) {
        if (isStatus(error, 404)) throw new PayloadNotFound(ref);
        throw error;
      }
      return verifiedPayload(ref as PayloadRef, bytes);
    },

    async has(ref) {
      return blobOf(ref).exists();
    },
  };
}

function isStatus(error: unknown, status: number): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { statusCode?: unknown }).statusCode === status
  );
}

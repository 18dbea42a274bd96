import type * as AzureIdentity from '@azure/identity';
import type * as StorageBlob from '@azure/storage-blob';
import type { FeedMemoryStore } from '../app/eventhub/feed-memory';
import type { PayloadsSetting } from '../config/payloads-setting';
import { createBlobPayloadStore } from './blob-payload-store';
import { createBlobFeedMemory, createFileFeedMemory } from './feed-memory-store';
import { createFilePayloadStore } from './file-payload-store';
import { createBlobKeyEscrow, createFileKeyEscrow, type KeyEscrowStore } from './key-escrow-store';
import type { PayloadStore } from './payload-store';

/**
 * Opens the PayloadStore the `KUBESCRIBE_PAYLOADS` setting names, and the key escrow beside it. `blob:` authenticates with
 * DefaultAzureCredential (managed identity on Azure; `AZURE_CLIENT_ID` picks a user-assigned one) and
 * expects the container to exist (infrastructure creates it); `blob-connection:` uses the connection
 * string and creates its container if missing, for Azurite and local use.
 */
// The Azure SDKs take a few hundred milliseconds to load: loaded when a blob store is opened, not
// with every module that can open one (the HTTP triggers of a cold instance, `npm start` on files).
const storageBlob = (): typeof StorageBlob => require('@azure/storage-blob');
const azureIdentity = (): typeof AzureIdentity => require('@azure/identity');

export async function openPayloadStore({
  setting,
}: {
  setting: PayloadsSetting;
}): Promise<PayloadStore & { keyEscrow: KeyEscrowStore; feedMemory: FeedMemoryStore }> {
  switch (setting.kind) {
    case 'file':
      return {
        ...createFilePayloadStore({ folder: setting.folder }),
        keyEscrow: createFileKeyEscrow({ folder: setting.folder }),
        feedMemory: createFileFeedMemory({ folder: setting.folder }),
      };
    case 'blob': {
      const { ContainerClient } = storageBlob();
      const { DefaultAzureCredential } = azureIdentity();
      const container = new ContainerClient(setting.containerUrl, new DefaultAzureCredential());
      return {
        ...createBlobPayloadStore({ container }),
        keyEscrow: createBlobKeyEscrow({ container }),
        feedMemory: createBlobFeedMemory({ container }),
      };
    }
    case 'blob-connection': {
      const { ContainerClient } = storageBlob();
      const container = new ContainerClient(setting.connectionString.reveal(), setting.container);
      await container.createIfNotExists();
      return {
        ...createBlobPayloadStore({ container }),
        keyEscrow: createBlobKeyEscrow({ container }),
        feedMemory: createBlobFeedMemory({ container }),
      };
    }
    default: {
      const unknown: never = setting;
      throw new TypeError(`unknown payload store setting ${JSON.stringify(unknown)}`);
    }
  }
}

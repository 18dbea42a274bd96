import { DefaultAzureCredential } from '@azure/identity';
import { ContainerClient } from '@azure/storage-blob';
import type { PayloadsSetting } from '../config/payloads-setting';
import { createBlobPayloadStore } from './blob-payload-store';
import { createFilePayloadStore } from './file-payload-store';
import { createBlobKeyEscrow, createFileKeyEscrow, type KeyEscrowStore } from './key-escrow-store';
import type { PayloadStore } from './payload-store';

/**
 * Opens the PayloadStore the `KUBESCRIBE_PAYLOADS` setting names, and the key escrow beside it. `blob:` authenticates with
 * DefaultAzureCredential (managed identity on Azure; `AZURE_CLIENT_ID` picks a user-assigned one) and
 * expects the container to exist (infrastructure creates it); `blob-connection:` uses the connection
 * string and creates its container if missing, for Azurite and local use.
 */
export async function openPayloadStore({
  setting,
}: {
  setting: PayloadsSetting;
}): Promise<PayloadStore & { keyEscrow: KeyEscrowStore }> {
  switch (setting.kind) {
    case 'file':
      return {
        ...createFilePayloadStore({ folder: setting.folder }),
        keyEscrow: createFileKeyEscrow({ folder: setting.folder }),
      };
    case 'blob': {
      const container = new ContainerClient(setting.containerUrl, new DefaultAzureCredential());
      return { ...createBlobPayloadStore({ container }), keyEscrow: createBlobKeyEscrow({ container }) };
    }
    case 'blob-connection': {
      const container = new ContainerClient(setting.connectionString.reveal(), setting.container);
      await container.createIfNotExists();
      return { ...createBlobPayloadStore({ container }), keyEscrow: createBlobKeyEscrow({ container }) };
    }
    default: {
      const unknown: never = setting;
      throw new TypeError(`unknown payload store setting ${JSON.stringify(unknown)}`);
    }
  }
}

import { ContainerClient } from '@azure/storage-blob';
import { parsePayloadsSetting } from '../../../shared/config';
import {
  createBlobPayloadStore,
  openPayloadStore,
  PayloadCorrupt,
  type PayloadStore,
  payloadRefOf,
} from '../../../shared/payloads';
import { type Azurite, startAzurite } from './azurite';
import { describePayloadStoreContract } from './payload-store-contract';

let azurite: Azurite;
let store: PayloadStore;
let container: ContainerClient;

beforeAll(async () => {
  azurite = await startAzurite();
  // Through the same path the app takes: KUBESCRIBE_PAYLOADS=blob-connection:<VAR>/<container>.
  const setting = parsePayloadsSetting({
    env: {
      KUBESCRIBE_PAYLOADS: 'blob-connection:AZURITE_CONNECTION/payloads',
      AZURITE_CONNECTION: azurite.connectionString,
    },
    dataDir: '/unused',
  });
  store = await openPayloadStore({ setting });
  container = new ContainerClient(azurite.connectionString, 'payloads');
});

afterAll(async () => {
  await azurite?.stop();
});

describePayloadStoreContract('blob store (Azurite)', () => store);

describe('blob store in a container', () => {
  it('given a payload when stored then it is one blob named by its digest', async () => {
    const ref = await store.put('blob layout');
    const names: string[] = [];
    for await (const blob of container.listBlobsFlat({ prefix: 'sha256/' })) names.push(blob.name);
    expect(names).toContain(`sha256/${ref.slice('sha256:'.length)}`);
  });

  it('given a stored payload when it is stored again then the first blob is kept, not rewritten', async () => {
    const ref = await store.put('kept once');
    const blob = container.getBlockBlobClient(`sha256/${ref.slice('sha256:'.length)}`);
    const before = (await blob.getProperties()).etag;
    await store.put('kept once');
    expect((await blob.getProperties()).etag).toBe(before);
  });

  it('given a blob whose bytes do not match its name when read then it is refused as corrupt', async () => {
    const ref = payloadRefOf(Buffer.from('what the name promises'));
    await container
      .getBlockBlobClient(`sha256/${ref.slice('sha256:'.length)}`)
      .uploadData(Buffer.from('something else'));
    await expect(store.get(ref)).rejects.toBeInstanceOf(PayloadCorrupt);
  });

  it('given a container that already exists when the store is opened again then it sees the same payloads', async () => {
    const ref = await store.put('shared container');
    const setting = parsePayloadsSetting({
      env: {
        KUBESCRIBE_PAYLOADS: 'blob-connection:AZURITE_CONNECTION/payloads',
        AZURITE_CONNECTION: azurite.connectionString,
      },
      dataDir: '/unused',
    });
    const again = await openPayloadStore({ setting });
    expect(await again.has(ref)).toBe(true);
  });

  it('given a container client when a store is made from it then it reads what the app stored', async () => {
    const ref = await store.put('direct client');
    expect(Buffer.from(await createBlobPayloadStore({ container }).get(ref)).toString()).toBe(
      'direct client',
    );
  });
});

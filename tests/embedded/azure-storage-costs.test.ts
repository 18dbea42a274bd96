// What an entity batch costs the Azure Storage backend, as the `azure-storage` faithful mode counts
// it (embedded/azure-storage-costs.ts, which cites DurableTask.AzureStorage line by line): each
// batch reads the entity's history, writes a new execution (three history rows and the sentinel in
// one transaction), merges the instance row and deletes the messages it consumed; a state over 60 KB
// of UTF-16 goes to a blob that every batch downloads, uploads anew and deletes the old one of.
// The least a durable design needs per accepted change is one queue message and one row.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type StorageCounts, storageRequests } from '../../embedded/azure-storage-costs';
import type { EngineSemantics } from '../../embedded/engine-semantics';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

const APP = require.resolve('../support/embedded/faithful-app');
const KIB = 1024;

let t: TestHost | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** A host whose client signals arrive once each and in order, so that each signal is one batch. */
async function host(semantics: EngineSemantics): Promise<TestHost> {
  t = await startTestHost(APP, { semantics, clientSignals: { reorderWindow: 0, duplicateProbability: 0 } });
  return t;
}

/** Signals `operation` with `input` to the Journal `key`, one batch each, and returns what they cost. */
async function costOf(h: TestHost, batches: number, operation: string, input: unknown) {
  const before: StorageCounts = structuredClone(h.host.engine.storage);
  for (let i = 0; i < batches; i++) {
    h.host.client.signalEntity('Journal', 'j', operation, JSON.stringify(input));
    await h.host.waitForIdle();
  }
  const after = h.host.engine.storage;
  const delta = (pick: (c: StorageCounts) => number) => (pick(after) - pick(before)) / batches;
  return {
    queue: {
      add: delta((c) => c.queue.add),
      get: delta((c) => c.queue.get),
      delete: delta((c) => c.queue.delete),
    },
    table: {
      query: delta((c) => c.table.query),
      transaction: delta((c) => c.table.transaction),
      rowsWritten: delta((c) => c.table.rowsWritten),
      instanceMerge: delta((c) => c.table.instanceMerge),
    },
    blob: {
      upload: delta((c) => c.blob.upload),
      download: delta((c) => c.blob.download),
      delete: delta((c) => c.blob.delete),
    },
    requests: delta(storageRequests),
    bytesWritten: delta((c) => c.bytesWritten),
    bytesRead: delta((c) => c.bytesRead),
  };
}

describe('azure-storage: each client signal taken in a batch of its own', () => {
  it('costs six requests against the least of two (one message, one row), with a small state inline', async () => {
    const h = await host('azure-storage');
    await costOf(h, 1, 'fill', 100); // the entity exists, its state 100 characters
    const cost = await costOf(h, 10, 'fill', 100);
    expect(cost).toMatchObject({
      queue: { add: 1, get: 1, delete: 1 },
      table: { query: 1, transaction: 1, rowsWritten: 4, instanceMerge: 1 },
      blob: { upload: 0, download: 0, delete: 0 },
      requests: 6,
    });
    // the state, carried whole: read from the history row, written to the new one and the instance row
    expect(cost.bytesRead).toBeGreaterThanOrEqual(100);
    expect(cost.bytesWritten).toBeGreaterThanOrEqual(2 * 100);
  });

  it('adds a blob download, upload and delete to every batch once the state passes 60 KB of UTF-16', async () => {
    const h = await host('azure-storage');
    const chars = 31 * KIB; // 62 KB of UTF-16 as the SchedulerState carries it
    await costOf(h, 1, 'fill', chars);
    const cost = await costOf(h, 5, 'fill', chars);
    expect(cost).toMatchObject({
      queue: { add: 1, get: 1, delete: 1 },
      table: { query: 1, transaction: 1, rowsWritten: 4, instanceMerge: 1 },
      blob: { upload: 1, download: 1, delete: 1 },
      requests: 9,
    });
    expect(h.host.engine.storage.entityStates).toMatchObject({ batches: 6 });
    expect(h.host.engine.storage.entityStates.maxBytes).toBeGreaterThan(chars);
    expect(h.host.engine.storage.entityStates.maxBytes).toBeLessThan(chars + 100);
    // in the blob, not the instance row: written once, read once per batch
    expect(cost.bytesWritten).toBeGreaterThanOrEqual(chars);
    expect(cost.bytesWritten).toBeLessThan(2 * chars);
    expect(cost.bytesRead).toBeGreaterThanOrEqual(chars);
  });

  it('stays inline just under the limit', async () => {
    const h = await host('azure-storage');
    const chars = 29 * KIB; // 58 KB of UTF-16 with the SchedulerState's wrapping
    await costOf(h, 1, 'fill', chars);
    expect((await costOf(h, 3, 'fill', chars)).blob).toEqual({ upload: 0, download: 0, delete: 0 });
  });
});

it('exact: counts nothing', async () => {
  const h = await host('exact');
  expect((await costOf(h, 3, 'fill', 100)).requests).toBe(0);
});

describe("azure-storage: a client's reads", () => {
  // AzureTableTrackingStore.FetchInstanceStatusInternalAsync: one query of the Instances table; the
  // extension reads an entity's state from the same row's input (its SchedulerState).
  it('reads a status or an entity state with one query of the instance row', async () => {
    const h = await host('azure-storage');
    await costOf(h, 1, 'fill', 100);
    const before = structuredClone(h.host.engine.storage);
    expect(h.host.client.readEntityState('Journal', 'j')).toMatchObject({ exists: true });
    expect(h.host.engine.storage.table.query - before.table.query).toBe(1);
    expect(h.host.engine.storage.bytesRead - before.bytesRead).toBeGreaterThanOrEqual(100);
    const id = h.host.client.startNew('Hello', { input: 'reader' });
    await h.host.waitForIdle();
    const queries = h.host.engine.storage.table.query;
    expect(h.host.client.getStatus(id)).toMatchObject({ runtimeStatus: 'Completed' });
    expect(h.host.engine.storage.table.query - queries).toBe(1);
  });

  it('downloads the blob of a state over 60 KB of UTF-16 at each read', async () => {
    const h = await host('azure-storage');
    await costOf(h, 1, 'fill', 31 * KIB);
    const before = structuredClone(h.host.engine.storage);
    h.host.client.readEntityState('Journal', 'j');
    h.host.client.readEntityState('Journal', 'j');
    expect(h.host.engine.storage.table.query - before.table.query).toBe(2);
    expect(h.host.engine.storage.blob.download - before.blob.download).toBe(2);
  });

  it('exact: counts no read', async () => {
    const h = await host('exact');
    await costOf(h, 1, 'fill', 100);
    h.host.client.readEntityState('Journal', 'j');
    expect(storageRequests(h.host.engine.storage)).toBe(0);
  });
});

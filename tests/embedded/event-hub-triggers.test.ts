// The embedded Event Hubs trigger against what the Functions host does with a `cardinality: many`
// function: the binding data (bodies; enqueuedTimeUtcArray, sequenceNumberArray, offsetArray,
// partitionContext in triggerMetadata: Azure/azure-functions-templates EventHubTrigger-JavaScript,
// the extension's EventHubTriggerBindingStrategy), `maxEventBatchSize` (host.json extensions.eventHubs),
// the checkpoint after every invocation, failed or not, and the function's retry policy
// (learn.microsoft.com/azure/azure-functions/functions-bindings-error-pages#retries: with Event Hubs a
// retried batch holds its partition; the checkpoint is written once the retries end).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { failNext, invocations } from '../support/embedded/event-hub-app';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

const APP = require.resolve('../support/embedded/event-hub-app');
let t: TestHost;

beforeAll(async () => {
  Object.assign(process.env, {
    TEST_RETRIED_HUB: 'audit-hub',
    TEST_EVENTHUB__fullyQualifiedNamespace: 'kubescribe-test.servicebus.windows.net',
  });
  t = await startTestHost(APP, { hostJson: { maxEventBatchSize: 2 } });
});

afterAll(async () => {
  await t?.stop();
});

beforeEach(() => {
  invocations.length = 0;
});

function checkpoint(
  hub: string,
  group: string,
  partition: string,
): { sequenceNumber: number; offset: number } {
  return JSON.parse(
    readFileSync(join(t.dataDir, 'event-hubs', hub, 'checkpoints', group, `${partition}.json`), 'utf8'),
  );
}

it('invokes the function with the bodies and the binding data of the Functions host, in batches of maxEventBatchSize', async () => {
  const enqueued = new Date(t.clock.now()).toISOString();
  t.host.eventHubs.publish('audit-hub', '0', [{ records: [1] }, { records: [2] }, 'plain text']);
  await t.host.waitForIdle();
  expect(invocations.map(({ bodies }) => bodies)).toEqual([
    [{ records: [1] }, { records: [2] }],
    ['plain text'],
  ]);
  const [first, second] = invocations;
  expect(first!.triggerMetadata).toMatchObject({
    partitionContext: {
      eventHubName: 'audit-hub',
      consumerGroup: 'readers',
      partitionId: '0',
      fullyQualifiedNamespace: 'kubescribe-test.servicebus.windows.net',
    },
    sequenceNumberArray: [0, 1],
    enqueuedTimeUtcArray: [enqueued, enqueued],
  });
  expect(second!.triggerMetadata).toMatchObject({ sequenceNumberArray: [2] });
  const offsets = [
    ...(first!.triggerMetadata!.offsetArray as string[]),
    ...(second!.triggerMetadata!.offsetArray as string[]),
  ].map(Number);
  expect(offsets[0]).toBe(0);
  expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
  expect(first!.retryCount).toBe(0);
  expect(checkpoint('audit-hub', 'readers', '0')).toMatchObject({ sequenceNumber: 2 });
});

it('retries a failed batch with exponential delays on the host clock, checkpointing only once it succeeds', async () => {
  failNext.retried = 3;
  const before = checkpoint('audit-hub', 'readers', '0');
  t.host.eventHubs.publish('audit-hub', '0', [{ n: 1 }]);
  await t.host.waitForIdle();
  expect(invocations.map(({ retryCount }) => retryCount)).toEqual([0]);
  // 1 s, then 2 s, then 4 s (the maximum): nothing runs before its time.
  await t.advance(999);
  expect(invocations).toHaveLength(1);
  await t.advance(1);
  expect(invocations).toHaveLength(2);
  await t.advance(1999);
  expect(invocations).toHaveLength(2);
  await t.advance(1);
  await t.advance(4000);
  expect(invocations.map(({ retryCount }) => retryCount)).toEqual([0, 1, 2, 3]);
  expect(invocations.every(({ bodies }) => JSON.stringify(bodies) === '[{"n":1}]')).toBe(true);
  expect(checkpoint('audit-hub', 'readers', '0').sequenceNumber).toBe(before.sequenceNumber + 1);
});

it('keeps other partitions moving while one waits for its retry', async () => {
  failNext.retried = 1;
  t.host.eventHubs.publish('audit-hub', '3', [{ stuck: true }]);
  await t.host.waitForIdle();
  t.host.eventHubs.publish('audit-hub', '4', [{ moving: true }]);
  await t.host.waitForIdle();
  expect(invocations.map(({ bodies }) => bodies)).toEqual([[{ stuck: true }], [{ moving: true }]]);
  await t.advance(1000);
  expect(invocations.map(({ bodies }) => bodies)).toEqual([
    [{ stuck: true }],
    [{ moving: true }],
    [{ stuck: true }],
  ]);
});

it('without a retry policy, checkpoints past a batch whose invocation failed, as the Functions host does', async () => {
  failNext.unretried = 1;
  t.host.eventHubs.publish('plain-hub', '0', [{ lost: true }]);
  await t.host.waitForIdle();
  t.host.eventHubs.publish('plain-hub', '0', [{ next: true }]);
  await t.host.waitForIdle();
  expect(invocations.map(({ bodies }) => bodies)).toEqual([[{ lost: true }], [{ next: true }]]);
  expect(checkpoint('plain-hub', '$Default', '0').sequenceNumber).toBe(1);
  expect(t.logs).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ event: 'EventHubFunctionFailed', function: 'unretried', retrying: false }),
    ]),
  );
});

it('delivers a batch again after a restart that came before its checkpoint', async () => {
  failNext.retried = 1;
  t.host.eventHubs.publish('audit-hub', '1', [{ again: true }]);
  await t.host.waitForIdle();
  expect(invocations).toHaveLength(1);
  await t.restart();
  await t.host.waitForIdle();
  expect(invocations.map(({ bodies, retryCount }) => [bodies, retryCount])).toEqual([
    [[{ again: true }], 0],
    [[{ again: true }], 0],
  ]);
  expect(checkpoint('audit-hub', 'readers', '1').sequenceNumber).toBe(0);
});

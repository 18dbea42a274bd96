jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import {
  type EngineSemantics,
  engineChoiceFromEnv,
  PayloadTooLargeError,
} from '../../embedded/engine-semantics';
import type { HostOptions } from '../../embedded/host';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';
import { gate } from '../support/embedded/sample-app';

const APP = require.resolve('../support/embedded/faithful-app');
const MINUTE = 60_000;
const KIB = 1024;

let t: TestHost | undefined;
afterEach(async () => {
  gate.open();
  await t?.stop();
  t = undefined;
});

async function host(semantics: EngineSemantics, options: Partial<HostOptions> = {}): Promise<TestHost> {
  await t?.stop();
  t = await startTestHost(APP, { semantics, ...options });
  return t;
}

/** The durable client's local RPC API, called as df.getClient() calls it. */
async function rpc(h: TestHost, method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(path, h.host.rpcBaseUrl), {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Waits (bounded, on real time) until the condition holds: activities run asynchronously. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

/** Sends 0..n-1 as client signals to one Journal and returns what the entity saw, in order. */
async function journalOfClientSignals(h: TestHost, n: number): Promise<number[]> {
  for (let i = 0; i < n; i++) h.host.client.signalEntity('Journal', 'j', 'add', JSON.stringify(i));
  await h.host.waitForIdle();
  const read = h.host.client.readEntityState('Journal', 'j');
  return read.exists ? (read.state as number[]) : [];
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('given client signals to an entity', () => {
  it('exact: delivers them once each, in the order they were sent', async () => {
    expect(await journalOfClientSignals(await host('exact'), 200)).toEqual(range(200));
  });

  it('azure-storage: delivers every one at least once, some twice, out of order within the window', async () => {
    const seen = await journalOfClientSignals(await host('azure-storage', { seed: 7 }), 200);
    expect([...new Set(seen)].sort((a, b) => a - b)).toEqual(range(200));
    expect(seen.length).toBeGreaterThan(200);
    expect(seen).not.toEqual([...seen].sort((a, b) => a - b));
    // a signal is taken at most a few places late: the window bounds how far each one moves
    seen.forEach((value, position) => {
      expect(position - value).toBeLessThan(60);
    });
  });

  it('azure-storage: the same seed gives the same deliveries, another seed others', async () => {
    const first = await journalOfClientSignals(await host('azure-storage', { seed: 11 }), 100);
    const again = await journalOfClientSignals(await host('azure-storage', { seed: 11 }), 100);
    const other = await journalOfClientSignals(await host('azure-storage', { seed: 12 }), 100);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it('azure-storage: signals an orchestration sends stay in order and once (the message sorter)', async () => {
    const h = await host('azure-storage', { seed: 7 });
    h.host.client.startNew('SignalsInOrder', { input: { key: 'o', n: 60 } });
    await h.host.waitForIdle();
    expect(h.host.client.readEntityState('Journal', 'o')).toEqual({ exists: true, state: range(60) });
  });
});

describe('given a client signal in flight when its partition moves', () => {
  // Azure/durabletask src/DurableTask.AzureStorage: ControlQueue.GetMessagesAsync dequeues with
  // ControlQueueVisibilityTimeout (AzureStorageOrchestrationServiceSettings: FromMinutes(5)); a
  // message the worker that lost the partition held reappears only when that timeout ends.
  const moved = { reorderWindow: 0, duplicateProbability: 0, partitionMoveProbability: 0.1 };

  it('azure-storage: holds it for the visibility timeout on the virtual clock, then delivers it behind every later signal, some twice', async () => {
    const h = await host('azure-storage', { seed: 3, clientSignals: moved });
    const before = await journalOfClientSignals(h, 200);
    const missing = range(200).filter((i) => !before.includes(i));
    expect(missing.length).toBeGreaterThan(3);
    await h.advance(5 * MINUTE - 1);
    expect(h.host.client.readEntityState('Journal', 'j')).toEqual({ exists: true, state: before });
    await h.advance(1);
    const after = (h.host.client.readEntityState('Journal', 'j') as { state: number[] }).state;
    expect(after.slice(0, before.length)).toEqual(before);
    const late = after.slice(before.length);
    expect([...new Set(after)].sort((a, b) => a - b)).toEqual(range(200));
    // every held signal comes after all 200 were sent; some had been taken once already
    expect(late.filter((i) => missing.includes(i)).sort((a, b) => a - b)).toEqual(missing);
    expect(late.some((i) => before.includes(i))).toBe(true);
  });

  it('exact: delivers it at once', async () => {
    const h = await host('exact', { clientSignals: moved });
    expect(await journalOfClientSignals(h, 200)).toEqual(range(200));
  });
});

describe('given queues that are polled (azure-storage, queuePolling)', () => {
  // Azure/durabletask src/DurableTask.AzureStorage/Messaging/TaskHubQueue.cs: a
  // BackoffPollingHelper(50 ms, MaxQueuePollingInterval) per queue; ControlQueue.GetMessagesAsync
  // and WorkItemQueue.GetMessageAsync wait on it after an empty poll, and nothing calls Reset.
  const INTERVAL = 5_000;
  const polled = (semantics: EngineSemantics = 'azure-storage') =>
    host(semantics, {
      seed: 9,
      queuePolling: true,
      hostJson: { maxQueuePollingIntervalMs: INTERVAL },
      clientSignals: { reorderWindow: 0, duplicateProbability: 0 },
    });

  /** Steps the virtual clock 100 ms at a time until `done`; answers the time it took. */
  async function waitOnClock(h: TestHost, done: () => boolean): Promise<number> {
    const start = h.clock.now();
    await h.host.waitForIdle();
    while (!done() && h.clock.now() - start < 10 * MINUTE) await h.advance(100);
    expect(done()).toBe(true);
    return h.clock.now() - start;
  }

  it('takes a signal to an idle entity up at the next poll, at most maxQueuePollingInterval later', async () => {
    const h = await polled();
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      h.host.client.signalEntity('Journal', 'p', 'add', JSON.stringify(i));
      waits.push(
        await waitOnClock(
          h,
          () =>
            h.host.client.readEntityState('Journal', 'p').exists &&
            (h.host.client.readEntityState('Journal', 'p') as { state: unknown[] }).state.length === i + 1,
        ),
      );
      await h.advance(1_300 * (i % 4));
    }
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(INTERVAL);
    expect(Math.max(...waits)).toBeGreaterThanOrEqual(2_000);
  });

  it('runs an orchestration and its activity one poll each, and a timer a poll after it falls due', async () => {
    const h = await polled();
    const id = h.host.client.startNew('Hello', { input: 'polled' });
    const took = await waitOnClock(h, () => h.host.client.getStatus(id)?.runtimeStatus === 'Completed');
    // start (control queue), activity (work-item queue), result (control queue): three polls at most
    expect(took).toBeGreaterThan(0);
    expect(took).toBeLessThanOrEqual(3 * INTERVAL);
    const waiting = h.host.client.startNew('ApproveThenWait', {});
    await waitOnClock(h, () =>
      (h.host.client.getStatus(waiting, { showHistory: true })!.history ?? []).some(
        (e) => e.EventType === 'TimerCreated',
      ),
    );
    const dueAt = h.clock.now() + 60 * MINUTE;
    await h.advance(60 * MINUTE - 100);
    const fired = () =>
      (h.host.client.getStatus(waiting, { showHistory: true })!.history ?? []).some(
        (e) => e.EventType === 'TimerFired',
      );
    await waitOnClock(h, fired);
    expect(h.clock.now() - dueAt).toBeLessThanOrEqual(INTERVAL);
  });

  /** The operations of each batch the entity ran, from the host's EntityBatchRan log. */
  const batchSizes = (h: TestHost, entity: string) =>
    h.logs
      .filter((l) => l.event === 'EntityBatchRan' && l.entity === entity)
      .map((l) => l.operations as number);

  it('fetches at most 32 messages: a burst to an idle entity runs in batches of 32 or fewer', async () => {
    const h = await polled();
    for (let i = 0; i < 100; i++) h.host.client.signalEntity('Journal', 'b', 'add', JSON.stringify(i));
    await waitOnClock(h, () => h.host.client.readEntityState('Journal', 'b').exists);
    await h.host.waitForIdle();
    expect(h.host.client.readEntityState('Journal', 'b')).toEqual({ exists: true, state: range(100) });
    expect(batchSizes(h, '@journal@b')).toEqual([32, 32, 32, 4]);
  });

  it('dts and unpolled azure-storage: take work up at once, in batches up to maxEntityOperationBatchSize', async () => {
    for (const [semantics, queuePolling] of [
      ['dts', true],
      ['azure-storage', false],
    ] as const) {
      const h = await host(semantics, {
        queuePolling,
        hostJson: { maxQueuePollingIntervalMs: INTERVAL },
        clientSignals: { reorderWindow: 0, duplicateProbability: 0 },
      });
      for (let i = 0; i < 100; i++) h.host.client.signalEntity('Journal', 'b', 'add', JSON.stringify(i));
      await h.host.waitForIdle();
      expect(h.host.client.readEntityState('Journal', 'b')).toEqual({ exists: true, state: range(100) });
      expect(batchSizes(h, '@journal@b')).toEqual([100]);
    }
  });
});

describe('given a custom status', () => {
  it('exact: keeps a custom status of any size', async () => {
    const h = await host('exact');
    const id = h.host.client.startNew('StatusOfSize', { input: 20_000 });
    await h.host.waitForIdle();
    expect(h.host.client.getStatus(id)!.runtimeStatus).toBe('Completed');
  });

  it('azure-storage: fails the orchestration above 16 KB of UTF-16, as the extension does', async () => {
    const h = await host('azure-storage');
    const small = h.host.client.startNew('StatusOfSize', { input: 8_000 });
    const large = h.host.client.startNew('StatusOfSize', { input: 9_000 });
    await h.host.waitForIdle();
    expect(h.host.client.getStatus(small)!.runtimeStatus).toBe('Completed');
    expect(h.host.client.getStatus(large)).toMatchObject({
      runtimeStatus: 'Failed',
      output:
        'The UTF-16 size of the JSON-serialized payload must not exceed 16 KB. The current payload size is 17 KB.',
    });
  });
});

describe('given payloads over the backend limits', () => {
  const overOneMiB = 'y'.repeat(1024 * KIB + 1);

  it('dts: refuses a start, an event and a client signal over 1 MiB (the RPC API answers 500)', async () => {
    const h = await host('dts');
    expect(() => h.host.client.startNew('Hello', { input: overOneMiB })).toThrow(PayloadTooLargeError);
    expect(() => h.host.client.signalEntity('Journal', 'big', 'add', JSON.stringify(overOneMiB))).toThrow(
      /Durable Task Scheduler refuses the signal 'add'/,
    );
    const running = h.host.client.startNew('ApproveThenWait', { instanceId: 'w-1' });
    expect(() => h.host.client.raiseEvent(running, 'approve', overOneMiB)).toThrow(PayloadTooLargeError);
    expect((await rpc(h, 'POST', 'orchestrators/Hello', overOneMiB)).status).toBe(500);
    expect(h.logs.some((l) => l.event === 'PayloadRefused')).toBe(true);
  });

  it('dts: fails the operation batch whose entity state is over 1 MiB and keeps the state', async () => {
    const h = await host('dts');
    h.host.client.signalEntity('Journal', 'f', 'add', '"before"');
    const id = h.host.client.startNew('FillsJournal', { input: { key: 'f', size: 1024 * KIB } });
    await h.host.waitForIdle();
    expect(String(h.host.client.getStatus(id)!.output)).toMatch(/^refused: .*Durable Task Scheduler refuses/);
    expect(h.host.client.readEntityState('Journal', 'f')).toEqual({ exists: true, state: ['before'] });
  });

  it('azure-storage: accepts them, and counts and logs each one moved to a blob', async () => {
    const h = await host('azure-storage');
    h.host.client.startNew('Hello', { input: 'z'.repeat(50 * KIB) });
    const id = h.host.client.startNew('FillsJournal', { input: { key: 'g', size: 40 * KIB } });
    await h.host.waitForIdle();
    expect(h.host.client.getStatus(id)!.output).toBe('filled');
    // messages over 45 KB: the start, the activity's input and its result; table properties over
    // 60 KB of UTF-16: the orchestration's output and the entity's state
    expect(h.host.engine.largePayloads).toEqual({ messages: 3, properties: 2 });
    expect(h.logs.filter((l) => l.event === 'LargePayloadToBlob')).toHaveLength(5);
  });

  it('exact: accepts them without counting', async () => {
    const h = await host('exact');
    h.host.client.startNew('Hello', { input: overOneMiB });
    await h.host.waitForIdle();
    expect(h.host.engine.largePayloads).toEqual({ messages: 0, properties: 0 });
  });
});

describe('given payloads measured as the backend stores them', () => {
  // An operation's input is JSON inside the extension's RequestMessage (`input` is a string:
  // azure-functions-durable-extension src/WebJobs.Extensions.DurableTask/EntityScheduler/RequestMessage.cs),
  // raised as an event; Azure Storage queues DTFx's MessageData around it, a string once more
  // (Azure/durabletask src/DurableTask.AzureStorage/MessageManager.cs measures
  // `Encoding.UTF8.GetByteCount(rawContent)` of that JSON against 45 KB). An entity's state is a
  // string inside its SchedulerState (EntityScheduler/SchedulerState.cs: `state`, `queue`).
  /** A JSON array of n one-letter strings: 4n bytes raw, 6n in a string, 10n in a string in a string. */
  const letters = (n: number) => JSON.stringify(Array.from({ length: n }, () => 'a'));

  it('dts: refuses a client signal under 1 MiB raw whose request message is over it', async () => {
    const h = await host('dts');
    const input = letters(200 * KIB); // 800 KiB raw, 1.2 MiB as the request message
    expect(Buffer.byteLength(input)).toBeLessThan(1024 * KIB);
    expect(() => h.host.client.signalEntity('Journal', 'big', 'add', input)).toThrow(
      /Durable Task Scheduler refuses the signal 'add'/,
    );
    h.host.client.signalEntity('Journal', 'big', 'add', letters(160 * KIB)); // 960 KiB as stored
    await h.host.waitForIdle();
    expect(h.host.client.readEntityState('Journal', 'big').exists).toBe(true);
  });

  it('azure-storage: moves a client signal of 40 KB raw to a blob (its queue message is over 45 KB)', async () => {
    const h = await host('azure-storage');
    h.host.client.signalEntity('Journal', 'q', 'add', letters(10 * KIB)); // 40 KiB raw
    await h.host.waitForIdle();
    expect(h.host.engine.largePayloads.messages).toBe(1);
  });

  it('dts: fails the batch whose state is under 1 MiB raw but over it as the extension stores it', async () => {
    const h = await host('dts');
    h.host.client.signalEntity('Journal', 's', 'add', '"before"');
    await h.host.waitForIdle();
    h.host.client.signalEntity('Journal', 's', 'fillList', String(200 * KIB)); // 800 KiB raw, 1.2 MiB stored
    await h.host.waitForIdle();
    expect(h.host.client.readEntityState('Journal', 's')).toEqual({ exists: true, state: ['before'] });
    expect(h.logs).toContainEqual(expect.objectContaining({ event: 'PayloadRefused' }));
    h.host.client.signalEntity('Journal', 's', 'fillList', String(160 * KIB)); // 960 KiB stored
    await h.host.waitForIdle();
    expect((h.host.client.readEntityState('Journal', 's') as { state: unknown[] }).state).toHaveLength(
      160 * KIB,
    );
  });
});

describe('given an activity that runs past functionTimeout', () => {
  async function timeoutWithAnotherInFlight(semantics: EngineSemantics) {
    const h = await host(semantics, { hostJson: { activityTimeoutMs: 5 * MINUTE } });
    const runs = gate.runs;
    const slow = h.host.client.startNew('GatedFanOut', { input: 1 });
    await until(() => gate.inFlight === 1);
    h.clock.advance(3 * MINUTE);
    const other = h.host.client.startNew('GatedFanOut', { input: 1 });
    await until(() => gate.inFlight === 2);
    h.clock.advance(2 * MINUTE); // the first one's timeout
    await until(() => h.host.client.getStatus(slow)!.runtimeStatus === 'Failed');
    gate.open(); // both invocations end now; the second one's result may be void
    await until(() => gate.inFlight === 1 || h.host.client.getStatus(other)!.runtimeStatus === 'Completed');
    gate.open();
    await h.host.waitForIdle();
    return { h, slow, other, runs: gate.runs - runs };
  }

  it('exact: fails only the activity that timed out', async () => {
    const { h, slow, other, runs } = await timeoutWithAnotherInFlight('exact');
    expect(String(h.host.client.getStatus(slow)!.output)).toContain(
      'Timeout value of 300000 ms was exceeded by function: Gated',
    );
    expect(h.host.client.getStatus(other)).toMatchObject({ runtimeStatus: 'Completed', output: 1 });
    expect(runs).toBe(2);
  });

  it('azure-storage: fails it with the FunctionTimeoutException message, restarts the worker, and runs the other activity again', async () => {
    const { h, slow, other, runs } = await timeoutWithAnotherInFlight('azure-storage');
    expect(String(h.host.client.getStatus(slow)!.output)).toContain(
      "Activity function 'Gated' failed: Timeout value of 00:05:00 was exceeded by function: Functions.Gated",
    );
    expect(h.host.client.getStatus(other)).toMatchObject({ runtimeStatus: 'Completed', output: 1 });
    expect(runs).toBe(3);
    expect(h.logs.some((l) => l.event === 'WorkerRestarted')).toBe(true);
  });
});

describe('given startNew on the id of a running instance', () => {
  it('azure-storage: answers 409 with the Azure Storage message', async () => {
    const h = await host('azure-storage');
    await rpc(h, 'POST', 'orchestrators/ApproveThenWait/dup-1', null);
    await h.host.waitForIdle();
    expect(await rpc(h, 'POST', 'orchestrators/ApproveThenWait/dup-1', null)).toEqual({
      status: 409,
      body: { message: 'An Orchestration instance with the status Running already exists.' },
    });
  });

  it('dts: answers 500', async () => {
    const h = await host('dts');
    await rpc(h, 'POST', 'orchestrators/ApproveThenWait/dup-2', null);
    await h.host.waitForIdle();
    expect((await rpc(h, 'POST', 'orchestrators/ApproveThenWait/dup-2', null)).status).toBe(500);
  });
});

describe('given a timer the orchestration cancelled', () => {
  async function cancelledTimer(semantics: EngineSemantics) {
    const h = await host(semantics);
    const id = h.host.client.startNew('ApproveThenWait', {});
    await h.host.waitForIdle();
    h.host.client.raiseEvent(id, 'approve', 'alice');
    await h.host.waitForIdle();
    await h.advance(60 * MINUTE);
    const fired = h.host.client
      .getStatus(id, { showHistory: true })!
      .history!.filter((e) => e.EventType === 'TimerFired');
    h.host.client.raiseEvent(id, 'done', null);
    await h.host.waitForIdle();
    return { fired: fired.length, status: h.host.client.getStatus(id)! };
  }

  it('exact: deletes it', async () => {
    const { fired, status } = await cancelledTimer('exact');
    expect(fired).toBe(0);
    expect(status).toMatchObject({ runtimeStatus: 'Completed', output: 'approved' });
  });

  it('azure-storage: still fires it later, waking the orchestration for a replay that ignores it', async () => {
    const { fired, status } = await cancelledTimer('azure-storage');
    expect(fired).toBe(1);
    expect(status).toMatchObject({ runtimeStatus: 'Completed', output: 'approved' });
  });
});

describe('given continueAsNew', () => {
  it('azure-storage: drops events no execution processed, as exact does', async () => {
    const h = await host('azure-storage');
    const id = h.host.client.startNew('Countdown', { input: { n: 1, events: [] } });
    h.host.client.raiseEvent(id, 'ping', 'early');
    await h.host.waitForIdle();
    await h.advance(MINUTE);
    await h.advance(MINUTE);
    expect(h.host.client.getStatus(id)).toMatchObject({
      runtimeStatus: 'Completed',
      output: { events: ['loop-1', 'no-ping'] },
    });
  });
});

describe('choosing the semantics', () => {
  it('reads KUBESCRIBE_ENGINE_SEMANTICS and KUBESCRIBE_ENGINE_SEED, and refuses other values by name', () => {
    expect(engineChoiceFromEnv({})).toEqual({});
    expect(
      engineChoiceFromEnv({ KUBESCRIBE_ENGINE_SEMANTICS: 'azure-storage', KUBESCRIBE_ENGINE_SEED: '42' }),
    ).toEqual({ semantics: 'azure-storage', seed: 42 });
    expect(() => engineChoiceFromEnv({ KUBESCRIBE_ENGINE_SEMANTICS: 'netherite' })).toThrow(
      'KUBESCRIBE_ENGINE_SEMANTICS must be one of exact, azure-storage, dts, got "netherite".',
    );
    expect(() => engineChoiceFromEnv({ KUBESCRIBE_ENGINE_SEED: 'abc' })).toThrow(/KUBESCRIBE_ENGINE_SEED/);
  });

  it('reports the semantics in force on the handle and in HostStarted', async () => {
    const h = await host('dts', { seed: 5 });
    expect(h.host.engine).toMatchObject({ semantics: 'dts', seed: 5 });
    expect(h.logs).toContainEqual(
      expect.objectContaining({ event: 'HostStarted', semantics: 'dts', seed: 5 }),
    );
  });
});

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

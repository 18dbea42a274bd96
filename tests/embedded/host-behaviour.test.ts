jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { parseHostSettings } from '../../embedded/host-config';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';
import { gate, hookCalls } from '../support/embedded/sample-app';

const APP = require.resolve('../support/embedded/sample-app');
let t: TestHost;
afterEach(async () => {
  gate.open();
  await t.stop();
});

/** Waits (bounded, on real time) until the condition holds: the host works asynchronously. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

it('given maxConcurrentActivities of 2, when ten activities are scheduled at once, then at most two run at a time', async () => {
  t = await startTestHost(APP, { hostJson: { maxConcurrentActivities: 2 } });
  gate.maxInFlight = 0;
  const id = t.host.client.startNew('GatedFanOut', { input: 10 });
  await until(() => gate.inFlight === 2);
  while (t.host.client.getStatus(id)!.runtimeStatus !== 'Completed') {
    gate.open();
    await new Promise((r) => setTimeout(r, 5));
  }
  expect(gate.maxInFlight).toBe(2);
  expect(t.host.client.getStatus(id)!.output).toBe(10);
});

it('given a function timeout, when an activity runs past it, then the orchestration sees the activity fail with a timeout', async () => {
  t = await startTestHost(APP, { hostJson: { activityTimeoutMs: 5 * 60_000 } });
  const id = t.host.client.startNew('GatedFanOut', { input: 1 });
  await until(() => gate.inFlight === 1);
  t.clock.advance(5 * 60_000);
  await t.host.waitForIdle();
  expect(t.host.client.getStatus(id)).toMatchObject({ runtimeStatus: 'Failed' });
  expect(String(t.host.client.getStatus(id)!.output)).toContain(
    'Timeout value of 300000 ms was exceeded by function: Gated',
  );
  expect(t.logs.some((l) => l.event === 'ActivityTimedOut')).toBe(true);
});

it('given an activity in flight, when the host stops before it ends, then the activity runs again after restart and the orchestration completes', async () => {
  t = await startTestHost(APP, { stopTimeoutMs: 0 });
  const id = t.host.client.startNew('GatedFanOut', { input: 1 });
  await until(() => gate.inFlight === 1);
  const runsBefore = gate.runs;
  await t.restart();
  expect(t.host.recovered.activities).toBe(1);
  gate.open(); // the first run ends now; its result belongs to the stopped host and is dropped
  await until(() => gate.runs === runsBefore + 1);
  gate.open();
  await t.host.waitForIdle();
  expect(t.host.client.getStatus(id)).toMatchObject({ runtimeStatus: 'Completed', output: 1 });
});

it("runs the app's appStart, preInvocation and postInvocation hooks around every invocation", async () => {
  const before = { start: hookCalls.appStart, echo: hookCalls.pre.get('Echo') ?? 0 };
  t = await startTestHost(APP);
  t.host.client.startNew('Hello', { input: 'hooks' });
  await t.host.waitForIdle();
  expect(hookCalls.appStart).toBe(before.start + 1);
  expect(hookCalls.pre.get('Echo')).toBe(before.echo + 1);
  expect(hookCalls.post.get('Echo')).toBe(before.echo + 1);
  expect(hookCalls.pre.get('Hello')).toBe(hookCalls.post.get('Hello'));
});

it('writes structured logs with a named event for each finished orchestration', async () => {
  t = await startTestHost(APP);
  const id = t.host.client.startNew('Broken', { input: 'logs' });
  await t.host.waitForIdle();
  expect(t.logs).toContainEqual(
    expect.objectContaining({ level: 'warn', event: 'OrchestrationFailed', instanceId: id, name: 'Broken' }),
  );
});

describe('host.json', () => {
  it('reads the durable limits, the task hub from the environment and the function timeout', () => {
    const settings = parseHostSettings(
      {
        functionTimeout: '00:10:00',
        extensions: {
          durableTask: {
            hubName: '%HUB%',
            maxConcurrentActivityFunctions: 4,
            maxEntityOperationBatchSize: 50,
          },
        },
      },
      { HUB: 'prodhub' },
    );
    expect(settings).toMatchObject({
      taskHubName: 'prodhub',
      maxConcurrentActivities: 4,
      maxEntityBatch: 50,
      activityTimeoutMs: 600_000,
    });
  });

  it('refuses an invalid value and names the field', () => {
    expect(() =>
      parseHostSettings({ extensions: { durableTask: { maxConcurrentActivityFunctions: 0 } } }),
    ).toThrow(/extensions\.durableTask\.maxConcurrentActivityFunctions/);
  });
});

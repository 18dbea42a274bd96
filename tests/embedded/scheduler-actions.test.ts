// What the Durable Task Scheduler bills, as the `dts` faithful mode counts it
// (embedded/scheduler-actions.ts). The rule is Microsoft's: an action is a message the scheduler
// dispatches to the app to run an orchestrator, activity or entity function (a start, an activity's
// start and its result, a fired timer, an external event, an entity operation, a termination, the
// result of an entity call or sub-orchestration); "an orchestration that calls three activities"
// spends seven (learn.microsoft.com, durable-task-scheduler-dedicated-sku, "What is an action?").
// A continue-as-new spends none: DTFx runs the next execution in the work item that continued
// (Azure/durabletask TaskOrchestrationDispatcher.cs, `do { … } while (continuedAsNew)`).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import type { EngineSemantics } from '../../embedded/engine-semantics';
import { type SchedulerActions, schedulerActionTotal } from '../../embedded/scheduler-actions';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

const APP = require.resolve('../support/embedded/faithful-app');
const MINUTE = 60_000;

let t: TestHost | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

/** A host whose client signals arrive once each, so each signal is one operation. */
async function host(semantics: EngineSemantics = 'dts'): Promise<TestHost> {
  t = await startTestHost(APP, { semantics, clientSignals: { reorderWindow: 0, duplicateProbability: 0 } });
  return t;
}

/** The actions counted while `work` ran and the host went idle, only the kinds that moved. */
async function actionsOf(h: TestHost, work: () => Promise<void> | void): Promise<Partial<SchedulerActions>> {
  const before = structuredClone(h.host.engine.actions);
  await work();
  await h.host.waitForIdle();
  const moved: Partial<SchedulerActions> = {};
  for (const [kind, n] of Object.entries(h.host.engine.actions) as [keyof SchedulerActions, number][]) {
    if (n !== before[kind]) moved[kind] = n - before[kind];
  }
  return moved;
}

it('an orchestration of five activities in turn: one start and two actions an activity', async () => {
  const h = await host();
  const moved = await actionsOf(h, () => {
    h.host.client.startNew('Sequence5');
  });
  expect(moved).toEqual({ orchestrationStarts: 1, activityStarts: 5, activityResults: 5 });
  expect(schedulerActionTotal(h.host.engine.actions)).toBe(11);
});

it('a client signal is one entity operation; a call from an orchestration is the operation and its answer', async () => {
  const h = await host();
  expect(
    await actionsOf(h, () => {
      for (let i = 0; i < 3; i++) h.host.client.signalEntity('Journal', 'j', 'add', String(i));
    }),
  ).toEqual({ entityOperations: 3 });
  // UsesCounter: four calls (add, get, refuse, crash) and one signal
  expect(
    await actionsOf(h, () => {
      h.host.client.startNew('UsesCounter', { input: 'c' });
    }),
  ).toEqual({ orchestrationStarts: 1, entityOperations: 5, events: 4 });
});

it('a fired timer and a raised event are one each; a continue-as-new starts nothing', async () => {
  const h = await host();
  // Countdown from 2: three executions, each waiting on a timer; the last waits for a ping or a minute
  const moved = await actionsOf(h, async () => {
    h.host.client.startNew('Countdown', { instanceId: 'count', input: { n: 2, events: [] } });
    await h.host.waitForIdle();
    await h.advance(MINUTE);
    await h.advance(MINUTE);
    h.host.client.raiseEvent('count', 'ping', null);
  });
  expect(moved).toEqual({ orchestrationStarts: 1, timersFired: 2, events: 1 });
  expect(h.host.client.getStatus('count')).toMatchObject({ runtimeStatus: 'Completed' });
});

it('sub-orchestrations: each child a start, its result one more; a termination is one', async () => {
  const h = await host();
  const moved = await actionsOf(h, async () => {
    h.host.client.startNew('Parent', { instanceId: 'parent' });
    await h.host.waitForIdle();
    await h.advance(MINUTE);
    await h.advance(MINUTE);
  });
  expect(moved).toEqual({ orchestrationStarts: 3, timersFired: 2, subOrchestrationResults: 2 });
  expect(
    await actionsOf(h, () => {
      h.host.client.startNew('ApproveThenWait', { instanceId: 'waits' });
    }),
  ).toEqual({ orchestrationStarts: 1 });
  expect(await actionsOf(h, () => void h.host.client.terminate('waits', 'no longer needed'))).toEqual({
    terminations: 1,
  });
});

it.each(['exact', 'azure-storage'] as const)('%s: counts no action', async (semantics) => {
  const h = await host(semantics);
  await actionsOf(h, () => {
    h.host.client.startNew('Sequence5');
    h.host.client.signalEntity('Journal', 'j', 'add', '1');
  });
  expect(schedulerActionTotal(h.host.engine.actions)).toBe(0);
});

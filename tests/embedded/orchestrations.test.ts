jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
let t: TestHost;

beforeEach(async () => {
  t = await startTestHost(require.resolve('../support/embedded/sample-app'));
});
afterEach(async () => {
  await t.stop();
});

async function run(name: string, input?: unknown, instanceId?: string) {
  const id = t.host.client.startNew(name, { input, instanceId });
  await t.host.waitForIdle();
  return id;
}
const status = (id: string) => t.host.client.getStatus(id)!;

describe('given an orchestration that calls activities', () => {
  it('completes with the activity result', async () => {
    const id = await run('Hello', 'tokyo');
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: 'hello tokyo', input: 'tokyo' });
  });

  it('runs a Task.all fan-out and returns results in call order', async () => {
    const id = await run('FanOut', 25);
    expect(status(id).output).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('fails the orchestration with the failing activity message when it is not caught', async () => {
    const id = await run('FailingActivity');
    expect(status(id).runtimeStatus).toBe('Failed');
    expect(String(status(id).output)).toContain("Activity function 'Fail' failed: refused order-7");
  });

  it('fails with the thrown message when the orchestrator itself throws', async () => {
    const id = await run('Broken', 'job-9');
    expect(status(id)).toMatchObject({ runtimeStatus: 'Failed' });
    expect(String(status(id).output)).toContain('broken on purpose for job-9');
  });
});

describe('given an activity called with retry options', () => {
  it('retries after the first interval and succeeds on a later attempt', async () => {
    const id = await run('Retrying', { key: 'retry-ok', failures: 2, attempts: 3 });
    expect(status(id).runtimeStatus).toBe('Running');
    await t.advance(MINUTE);
    await t.advance(MINUTE);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: 'retry-ok ok after 3 attempts' });
  });

  it('gives up after the last attempt and surfaces the last failure to the orchestrator', async () => {
    const id = await run('Retrying', { key: 'retry-never', failures: 9, attempts: 2 });
    for (let i = 0; i < 3; i++) await t.advance(MINUTE);
    expect(status(id).runtimeStatus).toBe('Completed');
    expect(status(id).output).toMatch(/^gave up: .*transient failure #2 of retry-never/);
  });
});

describe('given sub-orchestrations', () => {
  it('returns each child result to the parent, with generated and given child ids', async () => {
    const id = await run('Parent', undefined, 'parent-1');
    await t.advance(MINUTE);
    await t.advance(MINUTE);
    expect(status(id)).toMatchObject({
      runtimeStatus: 'Completed',
      output: { one: { doubled: 42, parent: 'parent-1' }, named: { doubled: 10, parent: 'parent-1' } },
    });
    expect(status('parent-1-named-child').runtimeStatus).toBe('Completed');
  });
});

describe('given durable timers', () => {
  it('sleeps through a 30-day timer under the virtual clock and wakes exactly at its due time', async () => {
    const startedAt = t.clock.now();
    const id = await run('LongSleep', 30 * DAY);
    await t.advance(30 * DAY - 1);
    expect(status(id).runtimeStatus).toBe('Running');
    await t.advance(1);
    expect(status(id).output).toBe(`woke at ${new Date(startedAt + 30 * DAY).toISOString()}`);
  });

  it('fires a timer that fell due while the host was stopped once after restart', async () => {
    const id = await run('LongSleep', DAY);
    await t.host.stop();
    t.clock.advance(3 * DAY);
    await t.restart();
    await t.host.waitForIdle();
    const history = t.host.client.getStatus(id, { showHistory: true })!.history!;
    expect(status(id).runtimeStatus).toBe('Completed');
    expect(history.filter((e) => e.EventType === 'TimerFired')).toHaveLength(1);
  });
});

describe('given Task.any of an external event and a timer', () => {
  it('takes the event when it arrives first and cancels the timer', async () => {
    const id = await run('Approval', null, 'approval-a');
    expect(status(id).customStatus).toEqual({ stage: 'waiting-for-approval' });
    expect(t.host.client.raiseEvent(id, 'approve', { by: 'alice' })).toBe('accepted');
    await t.host.waitForIdle();
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: { approvedBy: { by: 'alice' } } });
    expect(status(id).customStatus).toEqual({ stage: 'approved' });
  });

  it('takes the timer when no event arrives in time', async () => {
    const id = await run('Approval', null, 'approval-b');
    await t.advance(60 * MINUTE);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: { approvedBy: null } });
  });
});

describe('given an orchestration that loops with continueAsNew', () => {
  it('runs each execution with the new input and drops events no execution processed', async () => {
    const id = await run('Countdown', { n: 2, events: [] });
    t.host.client.raiseEvent(id, 'ping', 'early');
    await t.host.waitForIdle();
    await t.advance(MINUTE);
    await t.advance(MINUTE);
    expect(status(id).runtimeStatus).toBe('Running');
    await t.advance(MINUTE);
    expect(status(id)).toMatchObject({
      runtimeStatus: 'Completed',
      output: { events: ['loop-2', 'loop-1', 'no-ping'] },
    });
    const history = t.host.client.getStatus(id, { showHistory: true })!.history!;
    expect(history.filter((e) => e.EventType === 'ExecutionStarted')).toHaveLength(1);
  });
});

describe('given an orchestrator that is not deterministic', () => {
  it('fails the instance with an error naming the action that changed', async () => {
    const id = await run('Nondeterministic');
    expect(status(id).runtimeStatus).toBe('Failed');
    expect(status(id).output).toBe(
      "Non-deterministic workflow detected: action #0 was CallActivity 'Echo' in the history but the replay produced CallActivity 'Flaky'.",
    );
  });
});

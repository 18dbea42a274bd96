// Activities on worker threads (`activityThreads`, what `npm start` uses): the same results and
// failures as on the main thread, and a thread that ends is replaced.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { ACTIVITY_YOUNG_GENERATION_MB } from '../../embedded/activity-threads';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost(require.resolve('../support/embedded/sample-app'), { activityThreads: 2 });
});
afterAll(async () => {
  await t.stop();
});

async function run(name: string, input?: unknown) {
  const id = t.host.client.startNew(name, { input });
  await t.host.waitForIdle();
  return t.host.client.getStatus(id)!;
}

describe('given a host with activity threads', () => {
  it('runs an activity on a thread other than the main one and returns its result', async () => {
    const where = await run('Where');

    expect(where.runtimeStatus).toBe('Completed');
    expect(where.output).toEqual(expect.any(Number));
    expect(where.output).not.toBe(0);
    expect(await run('Hello', 'osaka')).toMatchObject({ runtimeStatus: 'Completed', output: 'hello osaka' });
  });

  it('runs a fan-out on the threads and returns the results in call order', async () => {
    const fanOut = await run('FanOut', 40);

    expect(fanOut.output).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('fails the orchestration with the message an activity threw on its thread', async () => {
    const failed = await run('FailingActivity');

    expect(failed.runtimeStatus).toBe('Failed');
    expect(String(failed.output)).toContain("Activity function 'Fail' failed: refused order-7");
  });

  it('keeps the young generation of a thread within its bound, however much short-lived garbage an activity makes', async () => {
    const young = await run('YoungGeneration');

    expect(young.runtimeStatus).toBe('Completed');
    // V8 would grow it to 32 MB and more (two 16 MB semi-spaces) at this rate of garbage
    expect((young.output as { youngBytes: number }).youngBytes).toBeLessThanOrEqual(
      ACTIVITY_YOUNG_GENERATION_MB * 1024 * 1024,
    );
  });

  it('fails an activity whose thread ends, and runs the next one on a new thread', async () => {
    const ended = await run('EndsThread');

    expect(ended.runtimeStatus).toBe('Failed');
    expect(String(ended.output)).toContain('an activity thread exited with code 3');
    expect(await run('Where')).toMatchObject({ runtimeStatus: 'Completed', output: expect.any(Number) });
  });
});

jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { scheduleIntervalMs } from '../../embedded/timer-schedule';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

let t: TestHost;

beforeAll(async () => {
  t = await startTestHost(require.resolve('../support/embedded/timer-app'));
});

afterAll(async () => {
  await t?.stop();
});

it('runs a timer function at each multiple of its interval, on the host clock', async () => {
  const start = t.clock.now();
  for (let second = 0; second < 20; second++) await t.advance(1000);
  const fires = Math.floor((start + 20_000) / 5000) - Math.floor(start / 5000);
  const ticks = await t.host.client.readEntityState('ticks', 'all');
  expect(ticks).toMatchObject({ exists: true, state: { count: fires, pastDue: 0 } });
});

it('runs a missed schedule once, past due, as the Functions host does after a pause', async () => {
  const before = t.host.client.readEntityState('ticks', 'all');
  const count = before.exists ? (before.state as { count: number }).count : 0;
  await t.advance(60_000);
  expect(t.host.client.readEntityState('ticks', 'all')).toMatchObject({
    state: { count: count + 1, pastDue: 1 },
  });
});

it('reads fixed intervals of seconds and minutes, and nothing else', () => {
  expect(scheduleIntervalMs('*/5 * * * * *')).toBe(5000);
  expect(scheduleIntervalMs('0 */1 * * * *')).toBe(60_000);
  expect(scheduleIntervalMs('0 * * * * *')).toBe(60_000);
  expect(scheduleIntervalMs('0 0 0 * * *')).toBeUndefined();
  expect(scheduleIntervalMs('30 */2 * * * *')).toBeUndefined();
  expect(scheduleIntervalMs('*/5 * * * *')).toBeUndefined();
});

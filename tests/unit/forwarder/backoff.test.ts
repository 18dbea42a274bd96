import { backoffDelayMs } from '../../../shared/forwarder/backoff';

describe('the reconnect and retry backoff', () => {
  it('doubles from 1 s up to 30 s at the top of its jitter', () => {
    const top = Array.from({ length: 8 }, (_, attempt) => backoffDelayMs(attempt, () => 1));
    expect(top).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('never waits less than half the step, so forwarders cut off together spread out without hot loops', () => {
    const bottom = Array.from({ length: 7 }, (_, attempt) => backoffDelayMs(attempt, () => 0));
    expect(bottom).toEqual([500, 1000, 2000, 4000, 8000, 15000, 15000]);
  });
});

import { readTailWithin } from '../../../shared/git/bounded-http';

/** A clock whose timers run only when the test fires them. */
function manualClock() {
  const timers = new Map<number, () => void>();
  let last = 0;
  return {
    timers,
    now: () => 0,
    setTimeout: (fn: () => void) => {
      timers.set(++last, fn);
      return last;
    },
    clearTimeout: (handle: unknown) => void timers.delete(handle as number),
  };
}

describe('the rest of an answer no one waits for', () => {
  it('is read to its end, and its bound is then disarmed', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    const chunks = [Buffer.from('0011\u0002remote: hi\n'), Buffer.from('0000')];
    let read = 0;
    const rest: AsyncIterator<Uint8Array> = {
      next: async () =>
        read < chunks.length ? { value: chunks[read++]!, done: false } : { value: undefined, done: true },
    };

    await readTailWithin({ rest, stop, clock, ms: 120_000 });

    expect(read).toBe(chunks.length);
    expect(clock.timers.size).toBe(0);
    expect(stop.signal.aborted).toBe(false);
  });

  it('is cut when it has not ended within its bound, and the reading ends without an error', async () => {
    const clock = manualClock();
    const stop = new AbortController();
    // a server that answers no more: the read ends only when the request bound to `stop` is destroyed
    const rest: AsyncIterator<Uint8Array> = {
      next: () =>
        new Promise((_, reject) => stop.signal.addEventListener('abort', () => reject(stop.signal.reason))),
    };

    const reading = readTailWithin({ rest, stop, clock, ms: 120_000 });
    expect(clock.timers.size).toBe(1);
    [...clock.timers.values()][0]!();

    await expect(reading).resolves.toBeUndefined();
    expect(stop.signal.reason).toEqual(new Error('the rest of an answer did not end within 120000 ms'));
    expect(clock.timers.size).toBe(0);
  });
});

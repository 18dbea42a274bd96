// Occurrences emitted on a worker thread (an embedded host's activity thread) reach the main
// thread's sinks, so that one `/metrics` counts what every thread did.
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { emit, subscribe } from '../../../shared/telemetry/bus';
import type { Occurrence } from '../../../shared/telemetry/occurrences';

const BUS = join(__dirname, '..', '..', '..', 'shared', 'telemetry', 'bus.ts');

it("tells the main thread's sinks what a worker thread emitted", async () => {
  const seen: Occurrence[] = [];
  let arrived = () => {};
  const done = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const unsubscribe = subscribe((occurrence) => {
    seen.push(occurrence);
    if (seen.length === 2) arrived();
  });
  try {
    emit({ type: 'StatusProjected', settled: true });
    const worker = new Worker(
      `require(${JSON.stringify(require.resolve('tsx/cjs'))});
       require(${JSON.stringify(BUS)}).emit({ type: 'GitCallTimed', call: 'push', durationMs: 12, ok: true });`,
      { eval: true },
    );
    await done;
    await worker.terminate();
    expect(seen).toEqual([
      { type: 'StatusProjected', settled: true },
      { type: 'GitCallTimed', call: 'push', durationMs: 12, ok: true },
    ]);
  } finally {
    unsubscribe();
  }
});

it('keeps telling the other sinks when one throws', () => {
  const seen: string[] = [];
  const unsubscribeFailing = subscribe(() => {
    throw new Error('a broken sink');
  });
  const unsubscribe = subscribe((occurrence) => seen.push(occurrence.type));
  try {
    expect(() => emit({ type: 'StatusProjected', settled: false })).not.toThrow();
    expect(seen).toEqual(['StatusProjected']);
  } finally {
    unsubscribeFailing();
    unsubscribe();
  }
});

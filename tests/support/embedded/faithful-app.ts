// The sample app plus the functions the faithful-mode tests need: an entity that records the order
// its operations arrive in, an orchestration with a custom status of a chosen size, one that signals
// in order, and one that keeps running after cancelling a timer.
import type { EntityContext } from 'durable-functions';
import * as df from 'durable-functions';
import './sample-app';

const MINUTE = 60_000;

/** Appends each `add` input to a list; `fill` replaces the state with a string of n characters, `fillList` with n strings. */
df.app.entity('Journal', (ctx: EntityContext<unknown[] | string>) => {
  switch (ctx.df.operationName) {
    case 'add': {
      const state = ctx.df.getState(() => []) as unknown[];
      state.push(ctx.df.getInput());
      ctx.df.setState(state);
      break;
    }
    case 'fill':
      ctx.df.setState('x'.repeat(ctx.df.getInput<number>() ?? 0));
      break;
    case 'fillList': // n one-letter strings: four bytes each as JSON, six once escaped into a string
      ctx.df.setState(Array.from({ length: ctx.df.getInput<number>() ?? 0 }, () => 'a'));
      break;
    case 'size':
      ctx.df.return(JSON.stringify(ctx.df.getState(() => [])).length);
      break;
  }
});

df.app.orchestration('StatusOfSize', function* (ctx) {
  ctx.df.setCustomStatus('s'.repeat(ctx.df.getInput<number>()));
  const echoed: unknown = yield ctx.df.callActivity('Echo', 'after the status');
  return echoed;
});

df.app.orchestration('SignalsInOrder', function* (ctx) {
  const { key, n } = ctx.df.getInput<{ key: string; n: number }>();
  for (let i = 0; i < n; i++) ctx.df.signalEntity(new df.EntityId('Journal', key), 'add', i);
  yield ctx.df.callActivity('Echo', 'signalled');
  return n;
});

df.app.orchestration('FillsJournal', function* (ctx) {
  const { key, size } = ctx.df.getInput<{ key: string; size: number }>();
  try {
    yield ctx.df.callEntity(new df.EntityId('Journal', key), 'fill', size);
    return 'filled';
  } catch (e) {
    return `refused: ${(e as Error).message}`;
  }
});

/** Approves or times out, then waits for `done`: it is still running when a cancelled timer falls due. */
df.app.orchestration('ApproveThenWait', function* (ctx) {
  const approval = ctx.df.waitForExternalEvent('approve');
  const timeout = ctx.df.createTimer(new Date(ctx.df.currentUtcDateTime.getTime() + 60 * MINUTE));
  const winner: unknown = yield ctx.df.Task.any([approval, timeout]);
  if (winner === approval) timeout.cancel();
  yield ctx.df.waitForExternalEvent('done');
  return winner === approval ? 'approved' : 'timed-out';
});

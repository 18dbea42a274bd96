// A small durable-functions v3 app for the embedded host's semantics tests, written against the real
// @azure/functions and durable-functions APIs (nothing in it knows about the host).
import { app, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import type { EntityContext, OrchestrationContext } from 'durable-functions';
import * as df from 'durable-functions';

const MINUTE = 60_000;
const later = (ctx: OrchestrationContext, ms: number) =>
  ctx.df.createTimer(new Date(ctx.df.currentUtcDateTime.getTime() + ms));

// ---- activities
df.app.activity('Echo', { handler: (input: unknown) => input });
df.app.activity('Fail', {
  handler: (input: unknown) => {
    throw new Error(`refused ${String(input)}`);
  },
});
const attempts = new Map<string, number>();
df.app.activity('Flaky', {
  handler: (input: unknown) => {
    const { key, failures } = input as { key: string; failures: number };
    const n = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, n);
    if (n <= failures) throw new Error(`transient failure #${n} of ${key}`);
    return `${key} ok after ${n} attempts`;
  },
});

// where an activity ran: 0 is a process's main thread
df.app.activity('WhereAmI', { handler: () => require('node:worker_threads').threadId as number });
df.app.activity('YoungGenerationAfterGarbage', {
  handler: () => {
    // a publication's rate of short-lived garbage, for long enough that V8 grows the young generation as far as it may
    let kept = 0;
    for (let i = 0; i < 2_000_000; i++) kept += { i, text: `object ${i}`, list: [i, i + 1] }.list.length;
    const young = require('node:v8')
      .getHeapSpaceStatistics()
      .find((space: { space_name: string }) => space.space_name === 'new_space');
    return { kept, youngBytes: young.space_size as number };
  },
});
df.app.activity('EndThread', {
  handler: () => {
    // on a worker thread this ends the thread, not the process
    process.exit(3);
  },
});

// ---- entity
interface Counter {
  value: number;
}
df.app.entity('Counter', (ctx: EntityContext<Counter>) => {
  const state = ctx.df.getState(() => ({ value: 0 }))!;
  switch (ctx.df.operationName) {
    case 'add':
      state.value += ctx.df.getInput<number>() ?? 0;
      ctx.df.setState(state);
      ctx.df.return(state.value);
      break;
    case 'get':
      ctx.df.return(state.value);
      break;
    case 'refuse':
      throw `counter ${ctx.df.entityKey} refuses`;
    case 'crash':
      throw new Error('counter crashed');
    case 'forward':
      ctx.df.signalEntity(new df.EntityId('Counter', ctx.df.getInput<string>()!), 'add', state.value);
      break;
    case 'reset':
      ctx.df.destructOnExit();
      break;
  }
});

// ---- orchestrations
df.app.orchestration('Hello', function* (ctx) {
  const greeting: unknown = yield ctx.df.callActivity('Echo', `hello ${ctx.df.getInput<string>()}`);
  return greeting;
});

df.app.orchestration('Where', function* (ctx) {
  const where: unknown = yield ctx.df.callActivity('WhereAmI');
  return where;
});

df.app.orchestration('YoungGeneration', function* (ctx) {
  return yield ctx.df.callActivity('YoungGenerationAfterGarbage');
});

df.app.orchestration('EndsThread', function* (ctx) {
  yield ctx.df.callActivity('EndThread');
});

df.app.orchestration('Retrying', function* (ctx) {
  const input = ctx.df.getInput<{ key: string; failures: number; attempts: number }>();
  try {
    return yield ctx.df.callActivityWithRetry('Flaky', new df.RetryOptions(MINUTE, input.attempts), input);
  } catch (e) {
    return `gave up: ${(e as Error).message.split('\n')[0]}`;
  }
});

df.app.orchestration('FailingActivity', function* (ctx) {
  yield ctx.df.callActivity('Fail', 'order-7');
  return 'unreachable';
});

df.app.orchestration('Child', function* (ctx) {
  const n = ctx.df.getInput<number>();
  yield later(ctx, MINUTE);
  return { doubled: n * 2, parent: ctx.df.parentInstanceId };
});
df.app.orchestration('Parent', function* (ctx) {
  const one: unknown = yield ctx.df.callSubOrchestrator('Child', 21);
  const named: unknown = yield ctx.df.callSubOrchestrator('Child', 5, `${ctx.df.instanceId}-named-child`);
  return { one, named };
});

df.app.orchestration('LongSleep', function* (ctx) {
  yield later(ctx, ctx.df.getInput<number>());
  return `woke at ${ctx.df.currentUtcDateTime.toISOString()}`;
});

df.app.orchestration('Approval', function* (ctx) {
  ctx.df.setCustomStatus({ stage: 'waiting-for-approval' });
  const approval = ctx.df.waitForExternalEvent('approve');
  const timeout = later(ctx, 60 * MINUTE);
  const winner: unknown = yield ctx.df.Task.any([approval, timeout]);
  if (winner === approval) {
    timeout.cancel();
    ctx.df.setCustomStatus({ stage: 'approved' });
    return { approvedBy: approval.result };
  }
  ctx.df.setCustomStatus({ stage: 'timed-out' });
  return { approvedBy: null };
});

df.app.orchestration('Sequence5', function* (ctx) {
  const out: unknown[] = [];
  for (const city of ['Tokyo', 'Seattle', 'London', 'Cairo', 'Lima'])
    out.push(yield ctx.df.callActivity('Echo', city));
  return out;
});

df.app.orchestration('FanOut', function* (ctx) {
  const n = ctx.df.getInput<number>();
  const results: unknown[] = yield ctx.df.Task.all(
    Array.from({ length: n }, (_, i) => ctx.df.callActivity('Echo', i)),
  );
  return results;
});

df.app.orchestration('UsesCounter', function* (ctx) {
  const key = ctx.df.getInput<string>();
  const id = new df.EntityId('Counter', key);
  const afterAdd: unknown = yield ctx.df.callEntity(id, 'add', 5);
  ctx.df.signalEntity(id, 'add', 10);
  const afterSignal: unknown = yield ctx.df.callEntity(id, 'get');
  const errors: string[] = [];
  for (const op of ['refuse', 'crash']) {
    try {
      yield ctx.df.callEntity(id, op);
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  return { afterAdd, afterSignal, errors };
});

df.app.orchestration('Countdown', function* (ctx) {
  const { n, events } = ctx.df.getInput<{ n: number; events: string[] }>();
  if (n === 0) {
    // Only events raised in this last execution can be seen here.
    const ping = ctx.df.waitForExternalEvent('ping');
    const winner: unknown = yield ctx.df.Task.any([ping, later(ctx, MINUTE)]);
    return { events: [...events, winner === ping ? 'ping' : 'no-ping'] };
  }
  yield later(ctx, MINUTE);
  ctx.df.continueAsNew({ n: n - 1, events: [...events, `loop-${n}`] });
  return undefined;
});

// Waits for 'go', then returns the version it runs under; with `renew`, continues as new first.
df.app.orchestration('Versioned', function* (ctx) {
  const renew = ctx.df.getInput<{ renew?: boolean } | null>()?.renew === true;
  yield ctx.df.waitForExternalEvent('go');
  if (renew) {
    ctx.df.continueAsNew({});
    return undefined;
  }
  return ctx.df.version ?? null;
});

df.app.orchestration('Broken', function* (ctx) {
  yield ctx.df.callActivity('Echo', 1);
  throw new Error(`broken on purpose for ${ctx.df.getInput<string>()}`);
});

let replays = 0;
df.app.orchestration('Nondeterministic', function* (ctx) {
  // A bug on purpose: the activity name depends on how often the function ran.
  replays++;
  yield ctx.df.callActivity(replays % 2 === 1 ? 'Echo' : 'Flaky', 'x');
  yield ctx.df.callActivity('Echo', 'y');
  return 'unreachable';
});

// ---- HTTP functions
app.http('StartApproval', {
  route: 'approvals/{id}',
  methods: ['POST'],
  extraInputs: [df.input.durableClient()],
  handler: async (req: HttpRequest, ctx: InvocationContext): Promise<HttpResponseInit> => {
    const client = df.getClient(ctx);
    const instanceId = `approval-${req.params.id}`;
    try {
      await client.startNew('Approval', { instanceId, input: null });
      return { status: 202, jsonBody: { instanceId, started: true } };
    } catch {
      // Started already (and still running): the start is idempotent for the caller.
      const status = await client.getStatus(instanceId);
      return { status: 200, jsonBody: { instanceId, started: false, runtimeStatus: status.runtimeStatus } };
    }
  },
});

app.http('Approve', {
  route: 'approvals/{id}/approve',
  methods: ['POST'],
  extraInputs: [df.input.durableClient()],
  handler: async (req: HttpRequest, ctx: InvocationContext): Promise<HttpResponseInit> => {
    await df.getClient(ctx).raiseEvent(`approval-${req.params.id}`, 'approve', await req.json());
    return { status: 202 };
  },
});

app.http('Items', {
  route: 'items/{id:int}',
  methods: ['GET'],
  handler: async (req: HttpRequest) => ({ jsonBody: { item: Number(req.params.id), q: req.query.get('q') } }),
});
app.http('ItemsNamed', {
  route: 'items/special',
  methods: ['GET'],
  handler: async () => ({ jsonBody: { item: 'special' } }),
});
app.http('Files', {
  route: 'files/{*path}',
  methods: ['GET'],
  handler: async (req: HttpRequest) => ({ jsonBody: { path: req.params.path } }),
});
app.http('EchoBody', {
  route: 'echo',
  methods: ['POST'],
  handler: async (req: HttpRequest) => ({
    status: 201,
    headers: { 'x-echo': 'yes' },
    body: await req.text(),
  }),
});
app.http('Throws', {
  route: 'throws',
  methods: ['GET'],
  handler: async () => {
    throw new Error('http function failed');
  },
});

// ---- hooks and a gated activity, for the host's own behaviour (concurrency, timeouts, stop)
/** Invocations seen by the app's preInvocation/postInvocation hooks, by function name. */
export const hookCalls = { appStart: 0, pre: new Map<string, number>(), post: new Map<string, number>() };
app.hook.appStart(() => {
  hookCalls.appStart++;
});
app.hook.preInvocation((ctx) => {
  const name = ctx.invocationContext.functionName;
  hookCalls.pre.set(name, (hookCalls.pre.get(name) ?? 0) + 1);
});
app.hook.postInvocation((ctx) => {
  const name = ctx.invocationContext.functionName;
  hookCalls.post.set(name, (hookCalls.post.get(name) ?? 0) + 1);
});

/** The Gated activity waits until the test opens the gate; it tracks how many run at once. */
export const gate = {
  inFlight: 0,
  maxInFlight: 0,
  runs: 0,
  waiters: [] as (() => void)[],
  open(): void {
    for (const w of gate.waiters.splice(0)) w();
  },
};
df.app.activity('Gated', {
  handler: async (input: unknown) => {
    gate.runs++;
    gate.inFlight++;
    gate.maxInFlight = Math.max(gate.maxInFlight, gate.inFlight);
    await new Promise<void>((resolve) => gate.waiters.push(resolve));
    gate.inFlight--;
    return input;
  },
});
df.app.orchestration('GatedFanOut', function* (ctx) {
  const n = ctx.df.getInput<number>();
  const results: unknown[] = yield ctx.df.Task.all(
    Array.from({ length: n }, (_, i) => ctx.df.callActivity('Gated', i)),
  );
  return results.length;
});

jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost(require.resolve('../support/embedded/sample-app'));
});
afterEach(async () => {
  await t.stop();
});

/** The durable client's local RPC API, called as df.getClient() calls it. */
async function rpc(method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(path, t.host.rpcBaseUrl), {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

describe('given an entity', () => {
  it('applies signals in order and answers calls from an orchestration with its return value', async () => {
    const id = t.host.client.startNew('UsesCounter', { input: 'c1' });
    await t.host.waitForIdle();
    const output = t.host.client.getStatus(id)!.output as {
      afterAdd: number;
      afterSignal: number;
      errors: string[];
    };
    expect(output.afterAdd).toBe(5);
    expect(output.afterSignal).toBe(15);
    expect(t.host.client.readEntityState('Counter', 'c1')).toEqual({ exists: true, state: { value: 15 } });
  });

  it('fails the caller with the message an operation throws as a string', async () => {
    const id = t.host.client.startNew('UsesCounter', { input: 'c2' });
    await t.host.waitForIdle();
    const { errors } = t.host.client.getStatus(id)!.output as { errors: string[] };
    expect(errors[0]).toBe('counter c2 refuses');
  });

  it('fails the caller with "[object Object]" for a thrown Error, exactly as the Azure extension does', async () => {
    const id = t.host.client.startNew('UsesCounter', { input: 'c3' });
    await t.host.waitForIdle();
    const { errors } = t.host.client.getStatus(id)!.output as { errors: string[] };
    expect(errors[1]).toBe('[object Object]');
  });

  it('delivers many client signals to one entity, batched, with none lost', async () => {
    for (let i = 0; i < 500; i++) t.host.client.signalEntity('Counter', 'many', 'add', '1');
    await t.host.waitForIdle();
    expect(t.host.client.readEntityState('Counter', 'many')).toEqual({ exists: true, state: { value: 500 } });
  });

  it('routes signals an entity sends to another entity, and forgets a destructed entity', async () => {
    t.host.client.signalEntity('Counter', 'src', 'add', '7');
    t.host.client.signalEntity('Counter', 'src', 'forward', JSON.stringify('dst'));
    t.host.client.signalEntity('Counter', 'src', 'reset', null);
    await t.host.waitForIdle();
    expect(t.host.client.readEntityState('Counter', 'dst')).toEqual({ exists: true, state: { value: 7 } });
    expect(t.host.client.readEntityState('Counter', 'src')).toEqual({ exists: false });
  });
});

describe('given the durable client RPC API', () => {
  it('starts with an instance id, refuses a second start while it runs, and allows one after it finished', async () => {
    expect(await rpc('POST', 'orchestrators/Approval/single-1', null)).toEqual({
      status: 202,
      body: { id: 'single-1' },
    });
    expect((await rpc('POST', 'orchestrators/Approval/single-1', null)).status).toBe(409);
    await rpc('POST', 'instances/single-1/raiseEvent/approve', 'bob');
    await t.host.waitForIdle();
    expect((await rpc('GET', 'instances/single-1')).status).toBe(200);
    expect((await rpc('POST', 'orchestrators/Approval/single-1', null)).status).toBe(202);
    await t.host.waitForIdle();
    expect((await rpc('GET', 'instances/single-1')).body).toMatchObject({ runtimeStatus: 'Running' });
  });

  it('refuses an unknown orchestrator and an invalid instance id with 400 and the reason', async () => {
    expect(await rpc('POST', 'orchestrators/Nope', null)).toEqual({
      status: 400,
      body: { message: "No orchestrator function named 'Nope' is registered." },
    });
    const bad = await rpc('POST', 'orchestrators/Hello/@entity-like', null);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("Invalid instance id '@entity-like'");
  });

  it('reports status with history, 202 while running and 404 for an unknown instance', async () => {
    await rpc('POST', 'orchestrators/Hello/h1', 'osaka');
    await t.host.waitForIdle();
    const done = await rpc('GET', 'instances/h1?showHistory=true&showHistoryOutput=true');
    expect(done.status).toBe(200);
    const history = (done.body as { history: { EventType: string; Result?: string }[] }).history;
    expect(history.map((e) => e.EventType)).toEqual([
      'ExecutionStarted',
      'TaskScheduled',
      'TaskCompleted',
      'ExecutionCompleted',
    ]);
    expect(history[2]!.Result).toBe('"hello osaka"');
    await rpc('POST', 'orchestrators/Approval/running-1', null);
    expect((await rpc('GET', 'instances/running-1')).status).toBe(202);
    expect((await rpc('GET', 'instances/nobody')).status).toBe(404);
  });

  it('raises events (202), answers 410 once finished and 404 for an unknown instance', async () => {
    await rpc('POST', 'orchestrators/Approval/ev-1', null);
    expect((await rpc('POST', 'instances/ev-1/raiseEvent/approve', 'carol')).status).toBe(202);
    await t.host.waitForIdle();
    expect(t.host.client.getStatus('ev-1')!.output).toEqual({ approvedBy: 'carol' });
    expect((await rpc('POST', 'instances/ev-1/raiseEvent/approve', 'late')).status).toBe(410);
    expect((await rpc('POST', 'instances/none/raiseEvent/approve', 'x')).status).toBe(404);
  });

  it('terminates a running instance with its reason and ignores its later timer', async () => {
    await rpc('POST', 'orchestrators/LongSleep/t-1', 60_000);
    await t.host.waitForIdle();
    expect((await rpc('POST', 'instances/t-1/terminate?reason=operator%20said%20so')).status).toBe(202);
    await t.advance(60_000);
    expect(t.host.client.getStatus('t-1')).toMatchObject({
      runtimeStatus: 'Terminated',
      output: 'operator said so',
    });
  });

  it('purges a finished instance and lists instances by status', async () => {
    await rpc('POST', 'orchestrators/Hello/p-1', 'a');
    await rpc('POST', 'orchestrators/Approval/p-2', null);
    await t.host.waitForIdle();
    const running = await rpc('GET', 'instances/?runtimeStatus=Running');
    expect((running.body as { instanceId: string }[]).map((s) => s.instanceId)).toEqual(['p-2']);
    expect((await rpc('GET', 'instances/')).body).toHaveLength(2);
    expect(await rpc('DELETE', 'instances/p-2')).toEqual({ status: 404, body: undefined });
    expect(await rpc('DELETE', 'instances/p-1')).toEqual({ status: 200, body: { instancesDeleted: 1 } });
    expect((await rpc('GET', 'instances/p-1')).status).toBe(404);
  });

  it('lists by creation time and purges finished instances by filter', async () => {
    await rpc('POST', 'orchestrators/Hello/old-1', 'a');
    await t.host.waitForIdle();
    t.clock.advance(60_000);
    const since = new Date(t.clock.now()).toISOString();
    await rpc('POST', 'orchestrators/Hello/new-1', 'b');
    await rpc('POST', 'orchestrators/Approval/new-2', null);
    await t.host.waitForIdle();
    const recent = await rpc('GET', `instances/?createdTimeFrom=${since}`);
    expect((recent.body as { instanceId: string }[]).map((s) => s.instanceId).sort()).toEqual([
      'new-1',
      'new-2',
    ]);
    expect(await rpc('DELETE', `instances/?createdTimeFrom=${since}`)).toEqual({
      status: 200,
      body: { instancesDeleted: 1 },
    });
    const left = (await rpc('GET', 'instances/')).body as { instanceId: string }[];
    expect(left.map((s) => s.instanceId).sort()).toEqual(['new-2', 'old-1']);
    expect(await rpc('GET', 'instances/?createdTimeFrom=yesterday')).toEqual({
      status: 400,
      body: { message: 'createdTimeFrom must be an ISO date-time, got "yesterday".' },
    });
  });

  it('signals an entity and reads its state, 404 for an entity that does not exist', async () => {
    expect((await rpc('POST', 'entities/Counter/r1?op=add', 4)).status).toBe(202);
    await t.host.waitForIdle();
    expect(await rpc('GET', 'entities/Counter/r1')).toEqual({ status: 200, body: { value: 4 } });
    expect((await rpc('GET', 'entities/Counter/ghost')).status).toBe(404);
  });
});

describe("given the app's HTTP functions", () => {
  it('starts a singleton through df.getClient and treats a second start as already started', async () => {
    const first = await t.http('POST', '/api/approvals/42');
    const second = await t.http('POST', '/api/approvals/42');
    expect(first).toMatchObject({ status: 202, body: { instanceId: 'approval-42', started: true } });
    expect(second).toMatchObject({ status: 200, body: { instanceId: 'approval-42', started: false } });
    expect(['Pending', 'Running']).toContain((second.body as { runtimeStatus: string }).runtimeStatus);
    expect(await t.http('POST', '/api/approvals/42/approve', { by: 'dave' })).toMatchObject({ status: 202 });
    await t.host.waitForIdle();
    expect(t.host.client.getStatus('approval-42')!.output).toEqual({ approvedBy: { by: 'dave' } });
  });

  it('binds route parameters, checks constraints and prefers literal segments', async () => {
    expect((await t.http('GET', '/api/items/17?q=x')).body).toEqual({ item: 17, q: 'x' });
    expect((await t.http('GET', '/api/items/special')).body).toEqual({ item: 'special' });
    expect((await t.http('GET', '/api/items/abc')).status).toBe(404);
    expect((await t.http('GET', '/api/files/a/b/c.yaml')).body).toEqual({ path: 'a/b/c.yaml' });
  });

  it('returns the status, headers and body the function sets', async () => {
    const r = await t.http('POST', '/api/echo', 'plain text');
    expect(r.status).toBe(201);
    expect(r.headers.get('x-echo')).toBe('yes');
    expect(r.body).toBe('plain text');
  });

  it('answers 413 to a body over the limit without running the function, and 500 when a function throws', async () => {
    const big = await t.http('POST', '/api/echo', 'x'.repeat(11 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect((await t.http('GET', '/api/throws')).status).toBe(500);
    expect(t.logs.some((l) => l.event === 'HttpFunctionFailed')).toBe(true);
  });
});

// A Git outage with the longest object names Kubernetes allows: the outage budget (bytes, and 1 KiB
// an item) lets the branch hold more paths than one entity's state could (1 MiB on the Durable
// Task Scheduler) if it kept them; it keeps each request's changes as a run of its batch payload,
// so the state stays far below its room (which counts runs, `state-room.ts`, and would pause intake
// with 429 first), and everything accepted publishes once Git returns.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { STATE_ROOM_BYTES } from '../../shared/app/http/state-room';
import { branchKeyFor } from '../../shared/app/runtime/branch-key';
import { BRANCH_ENTITY } from '../../shared/app/runtime/durable-names';
import { type AppHost, type AppResponse, git, oneTargetConfig, startAppHost } from '../support/app/app-host';
import type { FaultProxy } from '../support/git/start-fault-proxy';
import { type ProxiedRemote, startProxiedRemote } from '../support/git/start-proxied-remote';

let app: AppHost;
let served: ProxiedRemote;
let proxy: FaultProxy;

beforeAll(async () => {
  served = await startProxiedRemote();
  proxy = served.proxy;
  app = await startAppHost(
    oneTargetConfig({
      url: `${proxy.url}/state.git`,
      // A budget that holds far more than the state can: the state's room is what stops intake.
      limits: { branchBufferBytes: '256Mi', gitCallTimeout: '5s', publishTimeout: '20s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
  await served?.stop();
});

let version = 1000;
/** A ConfigMap whose namespace (63) and name (253) are as long as Kubernetes allows. */
function longNamed(index: number) {
  const name = `${index}-`.padEnd(253, 'n');
  const namespace = `ns-${index % 5}-`.padEnd(63, 's');
  return {
    type: 'ADDED',
    resource: 'configmaps',
    author: { username: 'alice' },
    object: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, resourceVersion: String(version++) },
      data: { index: String(index) },
    },
  };
}

function stateBytes(): number {
  const read = app.host.client.readEntityState(
    BRANCH_ENTITY,
    branchKeyFor(`${proxy.url}/state.git`, 'main').key,
  );
  return read.exists ? Buffer.byteLength(JSON.stringify(read.state)) : 0;
}

it('keeps the branch state small whatever the names, and publishes all it accepted once Git returns', async () => {
  proxy.inject({ on: 'refs', fault: { kind: 'refuse' }, times: 100_000 });
  const accepted: number[] = [];
  let refused: AppResponse | undefined;
  let largest = 0;
  for (let batch = 0; batch < 20 && !refused; batch++) {
    const indexes = Array.from({ length: 200 }, (_, i) => batch * 200 + i);
    const response = await app.http('POST', '/api/v1/targets/prod/events', {
      events: indexes.map(longNamed),
    });
    if (response.status === 202) accepted.push(...indexes);
    else refused = response;
    // A reading of the branch a second: the next request is admitted on what this one left.
    await app.advance(1000);
    largest = Math.max(largest, stateBytes());
  }
  // 4,000 changes of the longest names: inline, they passed the 768 KiB room after about 2,600
  expect(refused).toBeUndefined();
  expect(accepted).toHaveLength(4_000);
  expect(largest).toBeLessThanOrEqual(64 * 1024);
  expect(largest).toBeLessThan(STATE_ROOM_BYTES);

  proxy.reset();
  await app.advance(6 * 60_000);
  // Names past a file name's 255 bytes are shortened with a hash: the index leads each name.
  const published = (await git(served.remote, 'ls-tree', '-r', '--name-only', 'main'))
    .trim()
    .split('\n')
    .filter((file) => file.includes('/configmaps/'))
    .map((file) => Number(file.split('/configmaps/')[1]!.split('-')[0]))
    .sort((a, b) => a - b);
  expect(published).toEqual(accepted);
  // Intake still takes changes.
  expect(
    (await app.http('POST', '/api/v1/targets/prod/events', { events: [longNamed(99_999)] })).status,
  ).toBe(202);
});

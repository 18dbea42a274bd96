// A cluster's resync posts its objects in parts of 500 to the main thread, which parses and
// normalizes each; V8 lets the old generation grow several times over what is live before it
// collects, and keeps the pages. The heap grown for the parts must not be held while the
// publication builds the tree beside it (issue 30: a 100,000-object first snapshot within 400 MB):
// completing the snapshot gives it back. Measured in heap bytes, not RSS. The app on the embedded
// host with a virtual clock, a local bare repository.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type AppHost, oneTargetConfig, startAppHost } from '../support/app/app-host';
import { configMapEvent } from '../support/app/branch-observations';
import { createBareRepo } from '../support/git/create-bare-repo';

const PARTS = 24;
const PART_OBJECTS = 500;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

let app: AppHost;

beforeAll(async () => {
  const remote = await createBareRepo({
    root: mkdtempSync(`${tmpdir()}/ks-snapshot-heap-`),
    name: 'state.git',
  });
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { path: '.', prune: 'Always' },
      limits: { pushCooldown: '0s', branchBufferBytes: '1Gi', queueItems: 1_000_000 },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
});

/** A ConfigMap of about a kilobyte, as a cluster's objects are. */
const configMap = (i: number) => ({
  resource: 'configmaps',
  object: configMapEvent(`cm-${i}`, 'alice', { data: `${i}`.padStart(1000, 'x') }).object,
});

it("given a resync's parts posted, when it is completed, then the heap grown for them is given back", async () => {
  collect();
  collect();
  const before = process.memoryUsage().heapTotal;
  let grown = 0;
  for (let part = 0; part < PARTS; part++) {
    const objects = Array.from({ length: PART_OBJECTS }, (_, k) => configMap(part * PART_OBJECTS + k));
    const posted = await app.http('POST', '/api/v1/targets/prod/snapshots/resync-1/parts', { objects });
    expect(posted.status).toBe(202);
    grown = Math.max(grown, process.memoryUsage().heapTotal - before);
  }
  const complete = await app.http('POST', '/api/v1/targets/prod/snapshots/resync-1/complete', {
    revision: '1',
    scope: { group: '', resource: 'configmaps', namespace: 'shop' },
    parts: PARTS,
  });
  expect(complete.status).toBe(202);
  const kept = process.memoryUsage().heapTotal - before;
  // the posting grew the heap (by about 37 MB on Node 20), and the completion returned it
  expect(grown).toBeGreaterThan(16_000_000);
  expect(kept).toBeLessThan(grown / 3);
});

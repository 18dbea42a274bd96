/**
 * What a resync costs per object, counted, not timed: a cluster's snapshot re-states every object,
 * and publishing one with 1% changed must meet a dump tool's time (a dump tool writes every file,
 * `git add -A` hashes every one, `git commit`, `git push`: docs/architecture.md). So each object may
 * cost one blob hash to compare it with the tree, and only the changed ones a deflate, a blob in
 * the pack and the folders on their paths. The snapshot goes the publish activity's way: its parts
 * stored as the part route stores them, turned into Git writes (`toGitWrites`), published to a
 * bare repository (`publish`), and the pack that lands there is counted as Git lists it.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toGitWrites } from '../../../shared/app/activities/git-writes';
import type { PendingWrite } from '../../../shared/branch';
import * as blobOid from '../../../shared/git/blob-oid';
import * as objectDeflater from '../../../shared/git/object-deflater';
import { publish } from '../../../shared/git/publish';
import { createFilePayloadStore } from '../../../shared/payloads/file-payload-store';
import type { PayloadStore } from '../../../shared/payloads/payload-store';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';

const NAMESPACES = 40;
const TYPES = 5;
const OBJECTS = 3_000;
const PART_OBJECTS = 500;
const CHANGED = (i: number) => i % 100 === 0;
const TARGET = 'clusters/prod';

const pathOf = (i: number) =>
  `${TARGET}/ns-${i % NAMESPACES}/bench.example.com/kind${Math.floor(i / NAMESPACES) % TYPES}s/obj-${i}.yaml`;
const contentOf = (i: number, version: number) =>
  `apiVersion: bench.example.com/v1\nkind: Kind\nmetadata:\n  name: obj-${i}\nspec:\n  image: app:1.${version}\n`;

let root: string;
let remote: string;
let payloads: PayloadStore;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ks-resync-work-'));
  remote = await createBareRepo({ root, name: 'cluster.git' });
  payloads = createFilePayloadStore({ folder: join(root, 'payloads') });
});
// the module object itself, whose functions the object store calls (an ES namespace import is a frozen copy)
const zlib: typeof import('node:zlib') = require('node:zlib');

afterAll(() => rm(root, { recursive: true, force: true }));
afterEach(() => jest.restoreAllMocks());

/** Stores the snapshot's parts as the part route does (shared/app/http/ingest-routes.ts), and its pending write. */
async function snapshotOf(id: string, version: (i: number) => number) {
  const parts: string[] = [];
  for (let from = 0; from < OBJECTS; from += PART_OBJECTS) {
    const files = [];
    for (let i = from; i < Math.min(OBJECTS, from + PART_OBJECTS); i++)
      files.push({ path: pathOf(i), content: contentOf(i, version(i)) });
    parts.push(await payloads.put(JSON.stringify({ files, deletes: [] })));
  }
  const write: PendingWrite = {
    id,
    kind: 'snapshot',
    target: 'prod',
    targetPath: TARGET,
    author: { name: 'kubescribe' },
    attribution: 'configured',
    message: `Reconcile ${id}`,
    decidedAt: '2026-12-03T12:00:00.000Z',
    prune: 'Always',
    allowEmpty: false,
    snapshot: { scope: {}, revision: id, payloadRef: `snapshot:${id}`, bytes: 0 },
    saveIds: [],
    bytes: 0,
    items: 1,
  };
  return { write, parts };
}

/** Publishes the snapshot as the publish activity does; the payload reads it took. */
async function publishSnapshot(id: string, version: (i: number) => number, cacheDir: string) {
  const { write, parts } = await snapshotOf(id, version);
  let reads = 0;
  const writes = await toGitWrites({
    writes: [write],
    committer: { name: 'kubescribe', email: 'kubescribe@example.invalid' },
    readPayload: (ref) => {
      reads++;
      return payloads.get(ref);
    },
    snapshotParts: { [`snapshot:${id}`]: parts },
  });
  const result = await publish({ remote: { kind: 'local', path: remote }, branch: 'main', writes, cacheDir });
  if (result.kind !== 'published') throw new Error(`not published: ${JSON.stringify(result)}`);
  return { reads, parts: parts.length, head: result.head! };
}

const packsOf = async () =>
  new Set((await readdir(join(remote, 'objects', 'pack'))).filter((name) => name.endsWith('.idx')));

describe('a resync of a cluster with 1% of its objects changed', () => {
  it('given the cluster published, when the resync is published, then each object costs at most one blob hash, each part one read, and only the changed objects a deflate and pack space', async () => {
    const cacheDir = join(root, 'cache');
    const first = await publishSnapshot('full', () => 0, cacheDir);
    const packsBefore = await packsOf();
    const hashed = jest.spyOn(blobOid, 'blobOidOf');
    let deflatedHere = 0;
    const created = objectDeflater.createObjectDeflater;
    jest.spyOn(objectDeflater, 'createObjectDeflater').mockImplementation((options) => {
      const deflater = created(options);
      return {
        ...deflater,
        deflate: (data) => {
          deflatedHere += 1;
          return deflater.deflate(data);
        },
      };
    });
    const deflatedOffThread = jest.spyOn(zlib, 'deflate');

    const second = await publishSnapshot('one-percent', (i) => (CHANGED(i) ? 1 : 0), cacheDir);

    // what Git received: the new pack and the objects only the new commit reaches
    const newPacks = [...(await packsOf())].filter((name) => !packsBefore.has(name));
    expect(newPacks).toHaveLength(1);
    const packed = (
      await runGit({
        args: ['show-index'],
        input: await readFile(join(remote, 'objects', 'pack', newPacks[0]!)),
      })
    ).split('\n').length;
    const reachable = (
      await runGit({ args: ['--git-dir', remote, 'rev-list', '--objects', `${first.head}..${second.head}`] })
    ).split('\n').length;
    const changedPaths = Array.from({ length: OBJECTS }, (_, i) => i)
      .filter(CHANGED)
      .map(pathOf);
    const folders = new Set(
      changedPaths.flatMap((path) => {
        const names = path.split('/').slice(0, -1);
        return names.map((_, depth) => names.slice(0, depth + 1).join('/'));
      }),
    );
    // the changed blobs, the folders on their paths, the root folder and the commit
    const bound = changedPaths.length + folders.size + 2;
    expect(reachable).toBe(bound);
    expect(packed).toBe(bound);
    const deflates = deflatedHere + deflatedOffThread.mock.calls.length;
    expect(deflates).toBeGreaterThanOrEqual(changedPaths.length); // the counters see the store's work
    expect(deflates).toBeLessThanOrEqual(bound);
    expect(hashed.mock.calls.length).toBeGreaterThan(0);
    expect(hashed.mock.calls.length).toBeLessThanOrEqual(OBJECTS);
    expect(second.reads).toBe(second.parts);
  });
});

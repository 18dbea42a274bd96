/**
 * What a snapshot's publication holds at once, counted in files and bytes, not sampled RSS: a
 * cluster of 100,000 objects must publish within the host's memory goal (docs/architecture.md, "A
 * cluster"). Its parts are read one at a time as the tree is edited (never every file's text at
 * once), and its pack goes to the remote piece by piece as the object store holds it (never joined
 * into one buffer as large as every deflated file). The snapshot goes the publish activity's way:
 * parts stored as the part route stores them, `toGitWrites`, `publish` through smart HTTP (`git
 * http-backend`, which reads the pack from the POST body as receive-pack does) into an empty
 * repository, as the first resync of a cluster does.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toGitWrites } from '../../../shared/app/activities/git-writes';
import type { PendingWrite } from '../../../shared/branch';
import * as blobOid from '../../../shared/git/blob-oid';
import { publish } from '../../../shared/git/publish';
import { createFilePayloadStore } from '../../../shared/payloads/file-payload-store';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';
import { startGitServer } from '../../support/git/start-git-server';

const OBJECTS = 3_000;
const PART_OBJECTS = 500;
const TARGET = 'clusters/prod';
const pathOf = (i: number) => `${TARGET}/ns-${i % 40}/bench.example.com/kind${i % 5}s/obj-${i}.yaml`;

let root: string;
let server: Awaited<ReturnType<typeof startGitServer>>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ks-snapshot-memory-'));
  await createBareRepo({ root, name: 'cluster.git' });
  server = await startGitServer({ root });
});
afterAll(async () => {
  await server?.stop();
  await rm(root, { recursive: true, force: true });
});
afterEach(() => jest.restoreAllMocks());

describe("a cluster's first snapshot, published", () => {
  it('given its parts stored, when it is published, then at most one part of files is held unput and no buffer holds the whole pack', async () => {
    const payloads = createFilePayloadStore({ folder: join(root, 'payloads') });
    const parts: string[] = [];
    const filesIn = new Map<string, number>();
    for (let from = 0; from < OBJECTS; from += PART_OBJECTS) {
      const files = [];
      // a kilobyte of hex an object: deflates to about half, so the pack is some megabytes
      for (let i = from; i < from + PART_OBJECTS; i++)
        files.push({
          path: pathOf(i),
          content: `kind: ConfigMap\ndata:\n  k: ${randomBytes(512).toString('hex')}\n`,
        });
      const ref = await payloads.put(JSON.stringify({ files, deletes: [] }));
      parts.push(ref);
      filesIn.set(ref, files.length);
    }
    const write: PendingWrite = {
      id: 'first',
      kind: 'snapshot',
      target: 'prod',
      targetPath: TARGET,
      author: { name: 'kubescribe' },
      attribution: 'configured',
      message: 'Reconcile first',
      decidedAt: '2026-12-03T12:00:00.000Z',
      prune: 'Always',
      allowEmpty: false,
      snapshot: { scope: {}, revision: 'first', payloadRef: 'snapshot:first', bytes: 0 },
      saveIds: [],
      bytes: 0,
      items: 1,
    };
    // a file is in the tree once its blob is stored: the store names every object it keeps
    let blobsStored = 0;
    const hashObject = blobOid.objectOidOf;
    jest.spyOn(blobOid, 'objectOidOf').mockImplementation((type, bytes) => {
      if (type === 'blob') blobsStored++;
      return hashObject(type, bytes);
    });
    let filesRead = 0;
    let mostUnput = 0;
    const writes = await toGitWrites({
      writes: [write],
      committer: { name: 'kubescribe', email: 'kubescribe@example.invalid' },
      readPayload: (ref) => {
        filesRead += filesIn.get(ref) ?? 0;
        mostUnput = Math.max(mostUnput, filesRead - blobsStored);
        return payloads.get(ref);
      },
      snapshotParts: { 'snapshot:first': parts },
    });
    let largestJoined = 0;
    const join_ = Buffer.concat;
    jest.spyOn(Buffer, 'concat').mockImplementation((list, length) => {
      const joined = join_(list, length);
      largestJoined = Math.max(largestJoined, joined.length);
      return joined;
    });

    const result = await publish({
      remote: { kind: 'http', url: `${server.url}/cluster.git` },
      branch: 'main',
      writes,
      cacheDir: join(root, 'cache'),
    });

    expect(result.kind).toBe('published');
    const files = await runGit({
      args: ['--git-dir', join(root, 'cluster.git'), 'ls-tree', '-r', '--name-only', 'main'],
    });
    expect(files.split('\n')).toHaveLength(OBJECTS);
    // every file was read, and a part only once the one before it was in the tree
    expect(blobsStored).toBe(OBJECTS);
    expect(filesRead).toBe(OBJECTS);
    expect(mostUnput).toBe(PART_OBJECTS);
    // the pack as the remote received it, beside the largest buffer any join made meanwhile
    const packs = join(root, 'cluster.git', 'objects', 'pack');
    const packBytes = (
      await Promise.all(
        (
          await readdir(packs)
        )
          .filter((name) => name.endsWith('.pack'))
          .map(async (name) => (await stat(join(packs, name))).size),
      )
    ).reduce((total, size) => total + size, 0);
    expect(packBytes).toBeGreaterThan(1_000_000);
    expect(largestJoined).toBeGreaterThan(0); // the spy sees the publication's joins
    expect(largestJoined).toBeLessThan(packBytes / 8);
  });
});

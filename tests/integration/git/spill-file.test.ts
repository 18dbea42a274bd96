/**
 * A publication spills its deflated objects to a file beside the branch's cache (issue 30), and no
 * such file outlives it, whatever its outcome: published, refused by the remote, or out of time.
 * The file is unlinked once open, so what is checked is that the process holds none open after the
 * publication (Linux's list of its open files), and that the cache folder lists none.
 */
import { readdir } from 'node:fs/promises';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { openSpillFiles } from '../../support/git/open-spill-files';
import { type GitWorld, startGitWorld } from './git-fixture';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterEach(() => world.proxy.reset());
afterAll(() => world.stop());

const calm = { callTimeoutMs: 20_000, publishTimeoutMs: 60_000 };
const files = Object.fromEntries(
  Array.from({ length: 200 }, (_, i) => [`ns/obj-${i}.yaml`, `name: obj-${i}\n`]),
);

/** The spill files open under `cacheDir` when the push reaches the remote, before it is forwarded. */
function spillFilesAtPush(cacheDir: string) {
  const seen: { path: string }[][] = [];
  world.proxy.inject({
    on: 'push',
    fault: { kind: 'before', run: async () => void seen.push(await openSpillFiles(cacheDir)) },
  });
  return seen;
}

describe("a publication's spill file", () => {
  it('given a publication that lands, then its objects were spilled beside the cache while it pushed, and the file is gone after', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const seen = spillFilesAtPush(cacheDir);

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files })],
      cacheDir,
      ...calm,
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect(seen).toEqual([[expect.objectContaining({ path: expect.stringContaining(' (deleted)') })]]);
    expect(await openSpillFiles(cacheDir)).toEqual([]);
    expect((await readdir(cacheDir, { recursive: true })).filter((name) => name.includes('spill'))).toEqual(
      [],
    );
  });

  it('given a remote that refuses the push, then the file is gone after', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    world.proxy.inject({ on: 'push', fault: { kind: 'status', status: 503 } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files })],
      cacheDir,
      ...calm,
    });

    expect(result).toMatchObject({ kind: 'transient', step: 'push' });
    expect(await openSpillFiles(cacheDir)).toEqual([]);
  });

  it('given a push that stalls until the publication is out of time, then the file is gone after', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    world.proxy.inject({ on: 'push', fault: { kind: 'stall' } });
    // virtual time: the publication's bound is the first timer it arms, fired once the push is stalled
    const timers = new Map<number, () => void>();
    let last = 0;
    const clock = {
      now: () => 0,
      setTimeout: (fn: () => void) => {
        timers.set(++last, fn);
        return last;
      },
      clearTimeout: (handle: unknown) => void timers.delete(handle as number),
    };

    const pending = publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ files })],
      cacheDir,
      clock,
    });
    while (world.proxy.requests.at(-1)?.fault !== 'stall')
      await new Promise((resolve) => setImmediate(resolve));
    const whileStalled = await openSpillFiles(cacheDir);
    timers.get(1)!();

    expect(await pending).toEqual({ kind: 'timeout', step: 'publication', afterMs: 300_000 });
    expect(whileStalled).toHaveLength(1);
    expect(await openSpillFiles(cacheDir)).toEqual([]);
  });
});

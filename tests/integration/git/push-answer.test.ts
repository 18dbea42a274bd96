import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, rmSync, watch } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publishFile } from '../../support/git/publish-file';
import { runGit } from '../../support/git/run-git';
import { fsck, type GitWorld, logOf, startGitWorld } from './git-fixture';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterAll(() => world.stop());

/**
 * receive-pack answers a push with its report once it has updated the ref, then runs the
 * post-receive hook (whose output reaches the client as messages) and its `gc --auto`, and only then
 * sends the flush that ends its answer (git's builtin/receive-pack.c, cmd_receive_pack:
 * execute_commands, report, run_receive_hook "post-receive", the auto gc, packet_flush). GitLab's
 * post-receive hook prints where to open a merge request, after the report. Here the hook waits on a
 * gate (a FIFO) the test opens, so the answer stays open for as long as the test says.
 */
/**
 * Lets every hook still waiting on `gate` go: a test that failed before opening it would otherwise
 * leave the server's hook processes waiting after the server is gone. Opening a FIFO to write
 * without blocking succeeds only while a reader waits (ENXIO otherwise, fifo(7)).
 */
function releaseWaitingHooks(gate: string): void {
  for (let released = 0; released < 16; released++) {
    try {
      closeSync(openSync(gate, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      return;
    }
  }
}

describe('the answer to a push', () => {
  const gate = join(tmpdir(), `kubescribe-post-receive-gate-${process.pid}.fifo`);
  afterEach(() => {
    releaseWaitingHooks(gate);
    rmSync(gate, { force: true });
  });

  it("settles the push at the server's report, while its post-receive hook still runs, and the branch's next push waits for that answer's end to use its connection", async () => {
    execFileSync('mkfifo', [gate]);
    const open = () => writeFile(gate, 'go\n');
    const { url, gitdir } = await world.repo({
      files: { 'a.yaml': 'a\n' },
      postReceive: `echo "To create a merge request for main, visit: https://gitlab.example.invalid/g/r/-/merge_requests/new"\ncat "${gate}" > /dev/null`,
    });
    const cacheDir = await world.cacheDir();
    const publishOne = (file: string) => publishFile({ url, cacheDir, file });

    // were the whole answer awaited, this would wait for the gate, which opens only after it
    const first = await publishOne('b.yaml');
    expect(first).toMatchObject({ kind: 'published' });
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main'] })).toBe(
      first.kind === 'published' ? first.head : 'no head',
    );
    const connections = world.proxy.connectionsOpened();

    // the second publication reaches its push when the pack it sends is put in its cache, which the
    // push does as it sends (a new pack-*.idx appears: no polling)
    const packDir = join(
      cacheDir,
      (await readdir(cacheDir)).find((name) => name.endsWith('.git'))!,
      'objects',
      'pack',
    );
    const before = new Set(await readdir(packDir));
    const watcher = watch(packDir);
    const pushing = new Promise<void>((resolve) =>
      watcher.on('change', (_, name) => {
        if (typeof name === 'string' && name.endsWith('.idx') && !before.has(name)) resolve();
      }),
    );
    const second = publishOne('c.yaml');
    await pushing;
    watcher.close();
    // while the first answer is still open, the second push has not taken a connection of its own
    expect(world.proxy.connectionsOpened() - connections).toBe(0);
    await open(); // the first answer ends: its connection carries the second push
    expect(await second).toMatchObject({ kind: 'published' });
    await open();
    expect(world.proxy.connectionsOpened() - connections).toBe(0);
    expect(await logOf(gitdir)).toHaveLength(3);
    await fsck(gitdir);
  }, 20_000);
});

// kill -9 of the embedded host running the real app, at the points where a crash could lose or
// duplicate work; after a restart everything acknowledged is published exactly once.
import { git } from '../support/app/app-host';
import { commitAsAnotherWriter } from '../support/app/branch-observations';
import { crashScenarios, trailersOf, until } from '../support/app/crash-scenario';

const scenario = crashScenarios();

async function publishedFiles(remote: string): Promise<string[]> {
  return (await git(remote, 'ls-tree', '-r', '--name-only', 'main'))
    .split('\n')
    .filter((path) => path.endsWith('.yaml'));
}

async function expectPublishedExactlyOnce(remote: string, names: string[]): Promise<void> {
  await until(
    async () => (await publishedFiles(remote)).length === names.length,
    `${names.length} files are published`,
  );
  expect(await publishedFiles(remote)).toEqual(names.map((name) => `shop/configmaps/${name}.yaml`).sort());
  const trailers = await trailersOf(remote, 'main');
  expect(trailers.length).toBeGreaterThan(0);
  expect(new Set(trailers).size).toBe(trailers.length);
  await git(remote, 'fsck', '--strict');
}

describe('a crash of the host', () => {
  it('during an open window loses nothing acknowledged', async () => {
    const run = await scenario('window');
    await run.start();
    await run.post(['a', 'b', 'c']);
    await run.kill();
    expect(await publishedFiles(run.remote)).toEqual([]);
    await run.start();
    await expectPublishedExactlyOnce(run.remote, ['a', 'b', 'c']);
  });

  it('during a push (before the remote received it) publishes once after the restart', async () => {
    const run = await scenario('push');
    run.proxy.inject({ on: 'push', fault: { kind: 'stall' }, times: 1 });
    await run.start();
    await run.post(['d', 'e']);
    await until(() => run.proxy.requests.some((request) => request.kind === 'push'), 'the push starts');
    await run.kill();
    await run.start();
    await expectPublishedExactlyOnce(run.remote, ['d', 'e']);
  });

  it('after a push landed but before its result was recorded publishes no duplicate, even under a later commit', async () => {
    const run = await scenario('reply');
    run.proxy.inject({ on: 'push', fault: { kind: 'stallBody' }, times: 1 });
    await run.start();
    await run.post(['f', 'g']);
    await until(async () => (await publishedFiles(run.remote)).length === 2, 'the push lands on the remote');
    await run.kill();
    const landed = (await git(run.remote, 'rev-parse', 'main')).trim();
    const [landedWrite] = await trailersOf(run.remote, `${landed}^..${landed}`);
    // Someone edits f by hand while the host is down. Rebuilt on their commit, the landed write would
    // come back as a second commit of the same write, undoing the edit; found by its trailer, it is not.
    const edit = await commitAsAnotherWriter(
      run.remote,
      'main',
      { 'shop/configmaps/f.yaml': 'edited by hand\n' },
      'Edit f by hand',
    );
    await run.start();
    await run.post(['h']);
    await expectPublishedExactlyOnce(run.remote, ['f', 'g', 'h']);
    expect(await git(run.remote, 'rev-list', '--first-parent', `${landed}..main`)).toBe(
      `${(await git(run.remote, 'rev-parse', 'main')).trim()}\n${edit}\n`,
    );
    const trailers = await trailersOf(run.remote, 'main');
    expect(trailers).toHaveLength(2);
    expect(trailers[1]).toBe(landedWrite);
    expect(await git(run.remote, 'show', 'main:shop/configmaps/f.yaml')).toBe('edited by hand\n');
  });
});

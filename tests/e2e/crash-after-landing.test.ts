// H6 of the HA fault table (docs/architecture.md, "What survives what"): kill -9 of the host after a
// push landed and before its result was recorded, with saves attached to the writes it carried. The
// restarted host must answer each save with the commit that landed before the kill, never commit
// an empty save twice, and name the landed commit as the branch's last push.
import { git } from '../support/app/app-host';
import { commitAsAnotherWriter } from '../support/app/branch-observations';
import { type CrashScenario, crashScenarios, trailersOf, until } from '../support/app/crash-scenario';

const scenario = crashScenarios();

const freeze = {
  id: 'freeze',
  message: 'Mark the release freeze',
  author: { username: 'bob' },
  window: { attachTimeout: '0s' },
  whenNothingToCommit: 'CommitEmpty',
};
const scale = {
  id: 'scale',
  message: 'Scale the shop for the sale',
  author: { username: 'alice' },
  window: { maxDuration: '0s' },
};

/**
 * Lands one attempt carrying an empty save's record (`freeze`, bob: no window, so an empty commit)
 * and a window closed by a save with a message (`scale`, alice), then kills the host while the push's
 * reply is held. Both writes ride that attempt: the first push is refused (503) and the retry, 3 s
 * later, carries both. Returns the base and the two landed commits.
 */
async function landAndKill(run: CrashScenario) {
  run.proxy.inject({ on: 'push', fault: { kind: 'status', status: 503 }, times: 1 });
  run.proxy.inject({ on: 'push', fault: { kind: 'stallBody' }, times: 1 });
  const base = (await git(run.remote, 'rev-parse', 'main')).trim();
  await run.start();
  expect((await run.call('POST', '/saves', freeze)).status).toBe(202);
  await until(
    () => run.proxy.requests.some((request) => request.kind === 'push'),
    'the first push is refused',
  );
  await run.post(['i']);
  expect((await run.call('POST', '/saves', scale)).status).toBe(202);
  await until(
    async () => (await git(run.remote, 'rev-list', '--count', `${base}..main`)) === '2\n',
    'the retry lands both commits',
  );
  await run.kill();
  expect(run.proxy.requests.filter((request) => request.kind === 'push')).toHaveLength(2);
  expect(await git(run.remote, 'log', '--format=%s', `${base}..main`)).toBe(
    'Scale the shop for the sale\nMark the release freeze\n',
  );
  const [scaleCommit = '', freezeCommit = ''] = (await git(run.remote, 'rev-list', `${base}..main`))
    .trim()
    .split('\n');
  return { base, scaleCommit, freezeCommit };
}

async function resolvedSaves(run: CrashScenario) {
  const read = async (id: string) => (await run.call('GET', `/saves/${id}`)).body;
  await until(
    async () => (await read('scale')).phase === 'Resolved' && (await read('freeze')).phase === 'Resolved',
    'both saves resolve',
  );
  return { scale: await read('scale'), freeze: await read('freeze') };
}

describe('a crash after a push with saves landed, before its result was recorded', () => {
  it('answers each save Committed with the commit that landed, and names it as the last push', async () => {
    const run = await scenario('landed-saves', {
      retry: { initial: '3s', max: '6s' },
      // the save closes the window: an idle timeout this long only keeps a loaded machine from closing it first
      window: { idleTimeout: '10s', maxDuration: '20s' },
    });
    const { base, scaleCommit, freezeCommit } = await landAndKill(run);

    await run.start();
    const saves = await resolvedSaves(run);
    expect(saves.scale).toMatchObject({ outcome: 'Committed', commit: scaleCommit });
    expect(saves.freeze).toMatchObject({ outcome: 'Committed', commit: freezeCommit });
    expect((await run.call('GET', '')).body.publication).toMatchObject({
      pendingWrites: 0,
      lastPush: { commit: scaleCommit },
    });
    expect(await git(run.remote, 'rev-parse', 'main')).toBe(`${scaleCommit}\n`);
    expect(await trailersOf(run.remote, `${base}..main`)).toHaveLength(2);
    await git(run.remote, 'fsck', '--strict');
  });

  it('given another commit on top while the host was down, finds the landed commits by trailer: no second empty commit', async () => {
    const run = await scenario('landed-under', {
      retry: { initial: '3s', max: '6s' },
      // the save closes the window: an idle timeout this long only keeps a loaded machine from closing it first
      window: { idleTimeout: '10s', maxDuration: '20s' },
    });
    const { base, scaleCommit, freezeCommit } = await landAndKill(run);
    // Rebuilt on this commit instead of found, the empty save would commit again and the other save
    // would find its change already there (AlreadyPresent).
    const other = await commitAsAnotherWriter(run.remote, 'main', { 'NOTES.md': 'freeze starts\n' }, 'Notes');

    await run.start();
    const saves = await resolvedSaves(run);
    expect(saves.scale).toMatchObject({ outcome: 'Committed', commit: scaleCommit });
    expect(saves.freeze).toMatchObject({ outcome: 'Committed', commit: freezeCommit });
    expect((await run.call('GET', '')).body.publication).toMatchObject({ pendingWrites: 0 });
    expect(await git(run.remote, 'rev-list', `${base}..main`)).toBe(
      `${other}\n${scaleCommit}\n${freezeCommit}\n`,
    );
    const trailers = await trailersOf(run.remote, `${base}..main`);
    expect(new Set(trailers).size).toBe(2);
    expect(trailers).toHaveLength(2);
  });
});

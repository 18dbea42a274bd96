// H4 and H5 of the HA fault table (docs/architecture.md, "What survives what"): kill -9 with a save
// attached to a window most of the way to its idle timeout, while Git is down and a retry is
// scheduled; the host stays down for several retry intervals, so both deadlines are overdue at the
// restart, and changes are posted at once after it. The child host runs on the real clock, so the
// schedules are seconds long: retries 2 s doubling to 4 s, the save's idle timeout 5 s.
import { git } from '../support/app/app-host';
import { history } from '../support/app/branch-observations';
import { crashScenarios, trailersOf, until } from '../support/app/crash-scenario';
import type { GitRequestKind } from '../support/git/start-fault-proxy';

const scenario = crashScenarios();
const KINDS: GitRequestKind[] = ['refs', 'ls-refs', 'fetch', 'receive-refs', 'push'];

it('given a save attached and overdue deadlines at the restart, retries once then on the schedule, and the old window commits alone under the save', async () => {
  const run = await scenario('overdue', {
    retry: { initial: '2s', max: '4s' },
    window: { idleTimeout: '1s', maxDuration: '30s' },
  });
  // Git refuses every connection: each attempt is one refused request.
  for (const on of KINDS) run.proxy.inject({ on, fault: { kind: 'refuse' }, times: 100_000 });
  const attemptTimes = () =>
    run.proxy.requests.filter((request) => request.fault === 'refuse').map((request) => request.at);
  const attempts = () => attemptTimes().length;
  await run.start();
  await run.post(['early'], 'carol');
  await until(() => attempts() >= 1, 'the first attempt fails');

  // alice's window, with her save attached: the save's idle timeout (5 s) replaces the window's
  await run.post(['held']);
  const save = {
    id: 'held-save',
    message: 'Hold the shop',
    author: { username: 'alice' },
    window: { idleTimeout: '5s', maxDuration: '30s' },
  };
  expect((await run.call('POST', '/saves', save)).status).toBe(202);
  await until(
    async () => (await run.call('GET', '/saves/held-save')).body.phase === 'CollectingWindow',
    'the save attaches',
  );
  // the status reads the branch through a one-second cache: wait for the attached window to show
  let closesAt = Number.NaN;
  await until(async () => {
    const { window } = (await run.call('GET', '')).body;
    closesAt = Date.parse(window.closesAt);
    return window.author === 'alice' && closesAt > Date.now() + 3000;
  }, 'the window shows the save’s idle timeout');
  await until(() => Date.now() >= closesAt - 1500, 'the window is most of the way to its idle timeout');
  await run.kill();
  const before = attempts();

  // down for several retry intervals past both deadlines
  await until(() => Date.now() >= closesAt + 5000, 'the host has been down past the deadlines');
  await run.start();
  const restartedAt = Date.now();
  await run.post(['after-1', 'after-2']);
  await until(() => attempts() >= before + 2, 'two attempts after the restart', 20_000);
  const after = attemptTimes().slice(before);
  // One attempt at once for the overdue retry (before a whole interval of the schedule, 4 s by now,
  // could pass: the host's start and first episode take seconds on a loaded machine), then the
  // schedule's spacing, no burst.
  expect(after[0]! - restartedAt).toBeLessThan(4000);
  expect(after[1]! - after[0]!).toBeGreaterThanOrEqual(3500);

  run.proxy.reset();
  await until(
    async () => (await run.call('GET', '/saves/held-save')).body.phase === 'Resolved',
    'the held save resolves once Git answers',
    20_000,
  );
  await until(
    async () => (await run.call('GET', '')).body.publication.pendingWrites === 0,
    'all is published',
  );
  const commits = (await history(run.remote)).map((commit) => commit.subject);
  // newest first: the changes posted after the restart, then the old window alone under the save
  expect(commits).toEqual([
    'alice on prod: 2 resource(s)',
    'Hold the shop',
    '[CREATE] v1/configmaps shop/early',
    'seed',
  ]);
  const held = (await history(run.remote)).find((commit) => commit.subject === 'Hold the shop')!;
  expect(await git(run.remote, 'diff-tree', '--no-commit-id', '--name-only', '-r', held.sha)).toBe(
    'shop/configmaps/held.yaml\n',
  );
  expect((await run.call('GET', '/saves/held-save')).body).toMatchObject({
    outcome: 'Committed',
    commit: held.sha,
  });
  const trailers = await trailersOf(run.remote, 'main');
  expect(new Set(trailers).size).toBe(3);
  expect(trailers).toHaveLength(3);
  await git(run.remote, 'fsck', '--strict');
});

// H1 and H2 of the HA fault table (docs/architecture.md, "What survives what"): the real app killed
// with SIGKILL again and again under load, Git behind the fault proxy, and a client that does what
// a cluster's sender does (the audit webhook's and `kubescribe forward`'s batch retry): a request
// that got no answer is sent again, to the restarted host. A kill before admission loses only an
// unanswered request, which the resend brings; a kill after admission (the 202 lost) makes the
// resend a second delivery. Every acknowledged change lands, each resent one once.
import { git } from '../support/app/app-host';
import { type CrashScenario, crashScenarios, trailersOf, until } from '../support/app/crash-scenario';

const scenario = crashScenarios();
const KILLS = 3;

type Batch = { id: string; names: string[] };

/** Posts batches of three ConfigMaps from two senders until the host dies; sorts them by answer. */
async function load(run: CrashScenario, round: number, acked: Batch[], unanswered: Batch[]) {
  const sender = async (s: number) => {
    for (let n = 0; ; n++) {
      const batch = { id: `r${round}-s${s}-${n}`, names: [0, 1, 2].map((k) => `r${round}-s${s}-${n}-${k}`) };
      try {
        await run.post(batch.names);
        acked.push(batch);
      } catch {
        unanswered.push(batch); // no answer: the host is gone
        return;
      }
    }
  };
  await Promise.all([sender(0), sender(1)]);
}

it('given repeated SIGKILLs under load and a sender that resends what got no answer, every change lands once and the history is sound', async () => {
  const run = await scenario('loop');
  // a lost push reply among the kills, too
  run.proxy.inject({ on: 'push', fault: { kind: 'dropReply' }, times: 1, skip: 1 });
  const acked: Batch[] = [];
  const unanswered: Batch[] = [];
  for (let round = 0; round < KILLS; round++) {
    await run.start();
    const ackedBefore = acked.length;
    const running = load(run, round, acked, unanswered);
    // kill at a different point each round: after a growing number of acknowledged batches
    await until(() => acked.length >= ackedBefore + 2 + 3 * round, 'the round acknowledges its batches');
    await run.kill();
    await running;
  }
  await run.start();
  const resent = [...unanswered];
  for (const batch of resent) await run.post(batch.names);
  expect(resent.length).toBe(2 * KILLS);

  const names = [...acked, ...resent].flatMap((batch) => batch.names);
  const files = async () =>
    (await git(run.remote, 'ls-tree', '-r', '--name-only', 'main'))
      .split('\n')
      .filter((f) => f.endsWith('.yaml'));
  await until(async () => (await files()).length === names.length, 'every change is published', 30_000);
  expect((await files()).sort()).toEqual(names.map((name) => `shop/configmaps/${name}.yaml`).sort());
  // each change is committed once: one commit added each path, and no write has two commits
  const added = (await git(run.remote, 'log', '--format=', '--diff-filter=A', '--name-only', 'main'))
    .split('\n')
    .filter((path) => path.endsWith('.yaml'));
  expect(added.length).toBe(names.length);
  const modified = await git(run.remote, 'log', '--format=', '--diff-filter=M', '--name-only', 'main');
  expect(modified.trim()).toBe('');
  const trailers = await trailersOf(run.remote, 'main');
  expect(new Set(trailers).size).toBe(trailers.length);
  await git(run.remote, 'fsck', '--strict');
});

// The host as a child process under a workload of HTTP calls that signal entities and start
// orchestrations, killed with SIGKILL at random points and restarted: nothing acknowledged is lost.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildHost, spawnHost } from '../support/embedded/child-host';

const APP = join(__dirname, '..', 'support', 'embedded', 'crash-app.ts');
const KILLS = 12;
let dir: string;
let current: ChildHost | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubescribe-crash-'));
});
afterAll(async () => {
  if (current && current.child.exitCode === null) {
    current.child.kill('SIGKILL');
    await current.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const env = () => ({ KUBESCRIBE_TEST_EFFECTS: join(dir, 'effects.log') });

/** Posts work items until the host dies; returns the ids it acknowledged with 202. */
async function workload(host: ChildHost, prefix: string, acked: string[]): Promise<void> {
  let n = 0;
  const worker = async (w: number) => {
    for (;;) {
      const id = `${prefix}-${w}-${n++}`;
      try {
        const res = await fetch(`${host.url}/api/work/${id}`, { method: 'POST' });
        await res.text();
        if (res.status === 202) acked.push(id);
      } catch {
        return; // the host is gone
      }
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
}

async function rpcJson<T>(host: ChildHost, path: string): Promise<T | undefined> {
  const res = await fetch(new URL(path, host.rpcBaseUrl));
  return res.status === 404 ? undefined : ((await res.json()) as T);
}

it('given repeated SIGKILLs under load, when the host restarts, then every acknowledged request completes exactly as recorded', async () => {
  const acked: string[] = [];
  const dataDir = join(dir, 'data');
  for (let round = 0; round < KILLS; round++) {
    current = await spawnHost(APP, dataDir, env());
    const load = workload(current, `r${round}`, acked);
    await sleep(300 + Math.floor(Math.random() * 900));
    current.child.kill('SIGKILL');
    await current.exited;
    await load;
  }
  current = await spawnHost(APP, dataDir, env());
  expect(
    current.recovered.messages + current.recovered.activities + current.recovered.timers,
  ).toBeGreaterThan(0);
  expect(acked.length).toBeGreaterThan(KILLS);

  // Wait (bounded) until every started job finished.
  let instances: { instanceId: string; runtimeStatus: string }[] = [];
  for (let i = 0; i < 600; i++) {
    instances = (await rpcJson<typeof instances>(current, 'instances/')) ?? [];
    if (instances.length > 0 && instances.every((s) => s.runtimeStatus === 'Completed')) break;
    await sleep(100);
  }
  const accepted = new Set((await rpcJson<string[]>(current, 'entities/Ledger/accepted')) ?? []);
  const jobsDone = new Set((await rpcJson<string[]>(current, 'entities/Ledger/jobs')) ?? []);
  const effects = existsSync(join(dir, 'effects.log')) ? readFileSync(join(dir, 'effects.log'), 'utf8') : '';
  const effectLines = new Set(effects.split('\n').filter(Boolean));
  const completed = new Set(
    instances.filter((s) => s.runtimeStatus === 'Completed').map((s) => s.instanceId),
  );

  const stuck = instances.filter((s) => s.runtimeStatus !== 'Completed');
  expect(stuck).toEqual([]);
  const lost = acked.filter(
    (id) =>
      !accepted.has(id) ||
      !completed.has(`job-${id}`) ||
      !jobsDone.has(id) ||
      !effectLines.has(`${id}:1`) ||
      !effectLines.has(`${id}:2`),
  );
  expect(lost).toEqual([]);
  // Each job's 200 ms timer fired exactly once, however many kills fell around it.
  for (const id of acked.slice(0, 50)) {
    const job = await rpcJson<{ history: { EventType: string }[] }>(
      current,
      `instances/job-${id}?showHistory=true`,
    );
    expect(job?.history.filter((e) => e.EventType === 'TimerFired')).toHaveLength(1);
  }
  process.stdout.write(
    `crash test: ${KILLS} kills, ${acked.length} acknowledged requests, ${effectLines.size} effects\n`,
  );

  current.child.kill('SIGTERM');
  expect(await current.exited).toBe(0);
}, 120_000);

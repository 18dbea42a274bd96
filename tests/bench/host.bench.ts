/**
 * Embedded host benchmarks, printed beside the published Azure figures (ratio = ours / theirs):
 * signals per second to one entity, orchestration episodes per second, and recovery after a SIGKILL
 * with 10,000 queued messages. The machine may be shared: read the figures as orders of magnitude.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startHost } from '../../embedded/host';
import { createInstance } from '../../embedded/instances';
import { openStore } from '../../embedded/store';
import { spawnHost } from '../support/embedded/child-host';

const SAMPLE_APP = join(__dirname, '..', 'support', 'embedded', 'sample-app.ts');
const CRASH_APP = join(__dirname, '..', 'support', 'embedded', 'crash-app.ts');
const quiet = () => {};
const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);
const ratio = (ours: number, theirs: number) => `${(ours / theirs).toFixed(1)}x`;

function row(what: string, ours: string, azure: string, vs: string): void {
  console.log(`${what.padEnd(52)} ${ours.padStart(14)}   ${azure.padEnd(34)} ${vs}`);
}

async function signalsToOneEntity(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-bench-'));
  const host = await startHost({ appEntry: SAMPLE_APP, dataDir, port: 0, logger: quiet });
  try {
    // Through the durable client's local RPC API (what df.getClient() calls), 32 requests in flight on
    // keep-alive connections. The load generator shares this process (and its CPU) with the host.
    const n = 20_000;
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    const target = new URL(`${host.rpcBaseUrl}entities/Counter/hot?op=add`);
    const post = () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          {
            host: target.hostname,
            port: target.port,
            path: `${target.pathname}${target.search}`,
            method: 'POST',
            agent,
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 202 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end('1');
      });
    let sent = 0;
    const t0 = performance.now();
    const sender = async () => {
      while (sent < n) {
        sent++;
        await post();
      }
    };
    await Promise.all(Array.from({ length: 32 }, sender));
    await host.waitForIdle();
    agent.destroy();
    const ms = performance.now() - t0;
    const state = host.client.readEntityState('Counter', 'hot');
    if (!state.exists || (state.state as { value: number }).value !== n) throw new Error('signals were lost');
    const perSec = rate(n, ms);
    row(
      'signals/s to one entity (HTTP RPC, acked+applied)',
      `${perSec}/s`,
      'Azure Storage 64/s',
      ratio(perSec, 64),
    );
    row('', '', 'Netherite 900-1,900/s', `${ratio(perSec, 1900)}-${ratio(perSec, 900)}`);
    row('', '', 'goal >= 2,000/s', ratio(perSec, 2000));

    // In-process client (no HTTP): the store and the entity runner alone.
    const m = 50_000;
    const t1 = performance.now();
    for (let i = 0; i < m; i++) host.client.signalEntity('Counter', 'hot2', 'add', '1');
    await host.waitForIdle();
    const inProc = rate(m, performance.now() - t1);
    row(
      'signals/s to one entity (in-process client)',
      `${inProc}/s`,
      'Netherite 1,900/s (EP3)',
      ratio(inProc, 1900),
    );
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function orchestrationEpisodes(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-bench-'));
  const host = await startHost({ appEntry: SAMPLE_APP, dataDir, port: 0, logger: quiet });
  try {
    const n = 1_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) host.client.startNew('Sequence5', { instanceId: `seq-${i}` });
    await host.waitForIdle();
    const ms = performance.now() - t0;
    const done = host.client.list({ runtimeStatus: ['Completed'] }).length;
    if (done !== n) throw new Error(`only ${done} of ${n} orchestrations completed`);
    // Sequence5: the start plus one episode per activity result = 6 episodes per orchestration.
    const orchestrations = rate(n, ms);
    const episodes = rate(n * 6, ms);
    row(
      'HelloSequence5 orchestrations/s (5 activities each)',
      `${orchestrations}/s`,
      'Netherite 50-300/s per node',
      `${ratio(orchestrations, 300)}-${ratio(orchestrations, 50)}`,
    );
    row(
      'orchestration episodes/s',
      `${episodes}/s`,
      'Netherite 300-1,800/s (x6 of above)',
      `${ratio(episodes, 1800)}-${ratio(episodes, 300)}`,
    );
    row('', '', 'Azure Storage 5 seq. activities/s', ratio(episodes, 5));
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function recoveryAfterKill(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kubescribe-bench-'));
  const dataDir = join(dir, 'data');
  const env = { KUBESCRIBE_TEST_EFFECTS: join(dir, 'effects.log') };
  try {
    const first = await spawnHost(CRASH_APP, dataDir, env);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${first.url}/api/work/warm-${i}`, { method: 'POST' }).then((r) => r.text()),
      ),
    );
    first.child.kill('SIGKILL');
    await first.exited;
    // Top the queue up to 10,000 messages as the killed host left them: signals and orchestration starts.
    const store = openStore(join(dataDir, 'host.sqlite'));
    store.transaction(() => {
      for (let i = 0; store.messageCount() < 10_000; i++) {
        if (i % 10 === 0)
          createInstance(store, Date.now(), { instanceId: `job-q${i}`, name: 'Job', input: `q${i}` });
        else
          store.enqueue(`@ledger@k${i % 100}`, {
            kind: 'op',
            name: 'record',
            input: JSON.stringify(`q${i}`),
            isSignal: true,
          });
      }
    });
    const queued = store.messageCount();
    store.close();

    const t0 = performance.now();
    const second = await spawnHost(CRASH_APP, dataDir, env);
    const ready = performance.now() - t0;
    const db = new Database(join(dataDir, 'host.sqlite'), { readonly: true });
    const count = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM messages');
    while ((count.get()?.n ?? 0) > 0) await new Promise((r) => setTimeout(r, 20));
    const drained = performance.now() - t0;
    db.close();
    second.child.kill('SIGTERM');
    await second.exited;
    row(
      `recovery after SIGKILL, ${queued} queued: serving again`,
      `${Math.round(ready)} ms`,
      'no published figure',
      '-',
    );
    row(
      `recovery after SIGKILL, ${queued} queued: queue drained`,
      `${Math.round(drained)} ms`,
      'no published figure',
      '-',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log('Embedded host (SQLite WAL, one process) vs published Azure figures; machine possibly shared.');
  row('measure', 'embedded', 'published Azure figure', 'ratio');
  await signalsToOneEntity();
  await orchestrationEpisodes();
  await recoveryAfterKill();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

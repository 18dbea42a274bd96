/**
 * Forwarder benchmark (`npm run bench -- forwarder`): the initial snapshot of 10,000 ConfigMaps from
 * the protocol-level fake Kubernetes API server (streaming list), posted by the forwarder in parts to
 * the real app on the embedded host (real clock, SQLite, a local bare repository), timed until the
 * remote branch holds the commit. Baselines run side by side on the same machine:
 *  - direct: the same objects posted by one client as one `POST /snapshots` body (the forwarder's
 *    overhead: watch parsing, parts, cursor), to a second target on its own repository;
 *  - git CLI: the same YAML files written, added, committed and pushed by `git` (the floor for the
 *    Git work).
 * Peak RSS and heap are sampled every 20 ms; the app, the fake and the forwarder share this process.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startHost } from '../../embedded/host';
import { parseForwarderConfig } from '../../shared/forwarder/config';
import { runForwarder } from '../../shared/forwarder/forward';
import { startFakeKubeApi } from '../support/fake-kube-api/server';

const run = promisify(execFile);
const OBJECTS = Number(process.env.FORWARDER_OBJECTS ?? 10_000);
const TOKEN = 'bench-kube-token';
const CONFIGMAPS = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  statusSubresource: false,
};

function configMap(index: number) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${String(index).padStart(5, '0')}`, namespace: 'bench', labels: { app: 'bench' } },
    data: { index: String(index), value: 'x'.repeat(256) },
  };
}

function memorySampler() {
  const base = process.memoryUsage();
  let peakRss = base.rss;
  let peakHeap = base.heapUsed;
  const timer = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return { rssDeltaMiB: (peakRss - base.rss) / 2 ** 20, peakHeapMiB: peakHeap / 2 ** 20 };
    },
  };
}

async function waitForFiles(remote: string, folder: string, count: number): Promise<void> {
  for (;;) {
    try {
      const { stdout } = await run(
        'git',
        [`--git-dir=${remote}`, 'ls-tree', '-r', '--name-only', 'main', `${folder}/`],
        {
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      if (stdout.split('\n').filter(Boolean).length >= count) return;
    } catch {}
    await sleep(100);
  }
}

async function gitCliBaseline(dir: string): Promise<number> {
  const remote = join(dir, 'cli.git');
  const work = join(dir, 'cli-work');
  await run('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  await run('git', ['init', '-q', '-b', 'main', work]);
  const t0 = performance.now();
  const folder = join(work, 'bench', 'configmaps');
  mkdirSync(folder, { recursive: true });
  for (let i = 0; i < OBJECTS; i++) {
    const { metadata, data } = configMap(i);
    writeFileSync(
      join(folder, `${metadata.name}.yaml`),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${metadata.name}\n  namespace: bench\n  labels:\n    app: bench\ndata:\n  index: "${data.index}"\n  value: ${data.value}\n`,
    );
  }
  // gc.auto=0: 10,000 loose objects would start a detached `gc --auto` that outlives the benchmark.
  const git = (...args: string[]) =>
    run('git', [
      '-C',
      work,
      '-c',
      'gc.auto=0',
      '-c',
      'user.name=b',
      '-c',
      'user.email=b@example.invalid',
      ...args,
    ]);
  await git('add', '-A');
  await git('commit', '-q', '-m', 'snapshot');
  await git('push', '-q', remote, 'main');
  return performance.now() - t0;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ks-bench-forwarder-'));
  const remotes = { fwd: join(dir, 'fwd.git'), direct: join(dir, 'direct.git') };
  for (const remote of Object.values(remotes))
    await run('git', ['init', '-q', '--bare', '-b', 'main', remote]);
  const configFile = join(dir, 'kubescribe.json');
  const target = (name: string) => ({
    name,
    repository: name,
    branch: 'main',
    path: '.',
    prune: 'Always',
    window: { idleTimeout: '1s', maxDuration: '1m' },
  });
  writeFileSync(
    configFile,
    JSON.stringify({
      repositories: Object.entries(remotes).map(([name, url]) => ({ name, url })),
      targets: [target('fwd'), target('direct')],
      limits: { pushCooldown: '0s', branchBufferBytes: '64Mi', queueItems: 100000 },
      server: { auth: 'disabled' },
    }),
  );
  Object.assign(process.env, {
    KUBESCRIBE_CONFIG: configFile,
    KUBESCRIBE_DATA: dir,
    KUBESCRIBE_GIT_CACHE: join(dir, 'cache'),
  });
  const host = await startHost({
    appEntry: join(__dirname, '..', '..', 'functions', 'index.ts'),
    dataDir: dir,
    port: 0,
    logger: (level, event, fields) => {
      if (level === 'error') console.error(event, fields);
    },
  });
  const kube = await startFakeKubeApi({ types: [CONFIGMAPS], bearerToken: TOKEN });
  for (let i = 0; i < OBJECTS; i++) kube.create(CONFIGMAPS, configMap(i));
  try {
    // Baseline 1 (first, so that the forwarder is not the one paying the app's warm-up): one client, one body.
    const objects = Array.from({ length: OBJECTS }, (_, i) => configMap(i));
    const t1 = performance.now();
    const res = await fetch(`${host.url}/api/v1/targets/direct/snapshots`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        scope: { group: '', resource: 'configmaps', namespace: 'bench' },
        revision: '1',
        objects,
      }),
    });
    if (res.status !== 202) throw new Error(`direct snapshot answered ${res.status}: ${await res.text()}`);
    await waitForFiles(remotes.direct, 'bench/configmaps', OBJECTS);
    const directMs = performance.now() - t1;

    // The forwarder: streaming list → parts of 500 → complete → commit → push.
    const controller = new AbortController();
    let parts = 0;
    const memory = memorySampler();
    const t0 = performance.now();
    const forwarding = runForwarder({
      config: parseForwarderConfig(
        JSON.stringify({
          kubescribe: { url: host.url, target: 'fwd' },
          resources: [{ group: '', version: 'v1', resource: 'configmaps' }],
          namespaces: ['bench'],
          cursorFile: join(dir, 'cursors.json'),
        }),
      ),
      connection: {
        server: kube.url,
        requestOptions: async () => ({ headers: { authorization: `Bearer ${TOKEN}` } }),
      },
      token: undefined,
      log: (event, fields) => {
        if (event === 'WatchFailed' || event === 'WebhookUnavailable') console.error(event, fields);
      },
      progress: { advanced: () => parts++, done: () => {} },
      signal: controller.signal,
    });
    await waitForFiles(remotes.fwd, 'bench/configmaps', OBJECTS);
    const forwarderMs = performance.now() - t0;
    const forwarderMemory = memory.stop();
    controller.abort();
    await forwarding;

    // Baseline 2: the git CLI doing the Git work alone.
    const cliMs = await gitCliBaseline(dir);

    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(`objects: ${OBJECTS}, parts posted: ${parts} (shared machine: read as orders of magnitude)`);
    console.log(`forwarder snapshot → pushed commit     ${s(forwarderMs)}`);
    console.log(
      `direct one-body snapshot → pushed      ${s(directMs)}   forwarder/direct = ${(forwarderMs / directMs).toFixed(2)}x`,
    );
    console.log(
      `git CLI write+add+commit+push          ${s(cliMs)}   forwarder/git CLI = ${(forwarderMs / cliMs).toFixed(2)}x`,
    );
    console.log(
      `forwarder run: peak RSS +${forwarderMemory.rssDeltaMiB.toFixed(0)} MiB, peak heap ${forwarderMemory.peakHeapMiB.toFixed(0)} MiB (app, fake API and forwarder in one process)`,
    );
  } finally {
    await kube.close();
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * `npm run demo`: runs kubescribe on the embedded host in a temporary folder, posts a few cluster
 * changes (a watch-events batch by two authors, an audit EventList) and a save with a message,
 * waits (bounded, real time) until the save is answered and everything is pushed, prints the save's
 * status and `git log --stat` of the resulting repository, then stops and removes the folder.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { type HostHandle, startHost } from '../../embedded';

const run = promisify(execFile);
const TARGET = 'demo';
const SAVE_ID = 'demo-save-1';
const SAVE_MESSAGE = 'Scale web for the launch';
// Real time, so the bound must leave room for a busy machine; the demo itself needs a few seconds.
const WAIT_LIMIT_MS = 60_000;

function configMap(name: string, data: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop', resourceVersion: '100' },
    data,
  };
}

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    resourceVersion: '101',
    uid: '9a8b7c6d-0000-4000-8000-000000000001',
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'registry.example.com/web:2.1.0' }] },
    },
  },
  status: { replicas: 2 },
};

// Bob's change comes first, so Alice's window is still open when her save arrives and attaches to it.
const eventsBatch = {
  events: [
    {
      type: 'ADDED',
      resource: 'configmaps',
      object: configMap('feature-flags', { checkout: 'on' }),
      author: { username: 'bob' },
    },
    { type: 'MODIFIED', resource: 'deployments', object: deployment, author: { username: 'alice' } },
    {
      type: 'ADDED',
      resource: 'configmaps',
      object: configMap('web-settings', { mode: 'fast' }),
      author: { username: 'alice' },
    },
  ],
};

const auditEventList = {
  kind: 'EventList',
  apiVersion: 'audit.k8s.io/v1',
  items: [
    {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      auditID: '3f1c2a10-0d7e-4a55-9a51-0c6f7f0e1a01',
      stage: 'ResponseComplete',
      requestURI: '/api/v1/namespaces/shop/configmaps/web-settings',
      verb: 'patch',
      user: { username: 'carol@example.com', groups: ['developers', 'system:authenticated'] },
      objectRef: { resource: 'configmaps', namespace: 'shop', name: 'web-settings', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 200 },
      requestObject: [{ op: 'replace', path: '/data/retries', value: '5' }],
      responseObject: {
        ...configMap('web-settings', { mode: 'fast', retries: '5' }),
        metadata: { name: 'web-settings', namespace: 'shop', resourceVersion: '102' },
      },
      requestReceivedTimestamp: '2026-11-28T11:19:13.937551Z',
      stageTimestamp: '2026-11-28T11:19:13.941570Z',
    },
  ],
};

const resolvedSave = z.looseObject({
  phase: z.literal('Resolved'),
  outcome: z.string(),
  commit: z.string().optional(),
});
const allPushed = z.looseObject({
  publication: z.looseObject({ pendingWrites: z.literal(0) }),
  window: z.looseObject({ open: z.literal(false) }),
});

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'kubescribe-demo-'));
  const repository = join(folder, 'repository.git');
  let host: HostHandle | undefined;
  try {
    const configFile = join(folder, 'kubescribe.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        repositories: [
          {
            name: 'demo',
            url: repository,
            committer: { name: 'kubescribe', email: 'kubescribe@localhost' },
            createIfMissing: true,
          },
        ],
        targets: [
          {
            name: TARGET,
            repository: 'demo',
            branch: 'main',
            path: 'clusters/demo',
            // idle long enough that Alice's save, posted right after her change, finds her window open on a busy machine
            window: { idleTimeout: '3s', maxDuration: '10s' },
          },
        ],
        limits: { pushCooldown: '1s', retry: { initial: '1s', max: '5s' } },
        server: { host: '127.0.0.1', auth: 'disabled' },
      }),
    );
    // The app reads its settings from the environment (the app settings contract); this process is the demo's own.
    delete process.env.KUBESCRIBE_CONFIG_CONTENT;
    delete process.env.KUBESCRIBE_PAYLOADS;
    Object.assign(process.env, {
      KUBESCRIBE_CONFIG: configFile,
      KUBESCRIBE_DATA: join(folder, 'data'),
      KUBESCRIBE_GIT_CACHE: join(folder, 'git-cache'),
    });
    host = await startHost({
      appEntry: join(__dirname, '..', 'index'),
      dataDir: join(folder, 'data'),
      port: 0,
      logger: (level, event, fields) => {
        if (level === 'warn' || level === 'error')
          process.stderr.write(`${level} ${event} ${JSON.stringify(fields ?? {})}\n`);
      },
    });
    const api = apiClient(host.url);
    say(
      `kubescribe demo on ${host.url}, publishing to ${repository} (a temporary folder, removed when the demo ends)\n`,
    );

    await api.post(`/api/v1/targets/${TARGET}/events`, eventsBatch, 'watch events by bob and alice');
    await api.post(
      `/api/v1/targets/${TARGET}/saves`,
      { id: SAVE_ID, message: SAVE_MESSAGE, author: { username: 'alice' }, window: { maxDuration: '3s' } },
      "alice's save",
    );
    await api.post(
      `/api/v1/targets/${TARGET}/audit`,
      auditEventList,
      'an audit EventList (carol patches a ConfigMap)',
    );

    say('\nwaiting for the save to be answered and everything to be pushed...\n');
    const save = await waitFor(async () => {
      // The branch records the save moments after the 202 (a durable signal), so a first read may be 404.
      const answer = resolvedSave.safeParse(
        await api.get(`/api/v1/targets/${TARGET}/saves/${SAVE_ID}`, { orNotFound: true }),
      );
      return answer.success ? answer.data : undefined;
    });
    await waitFor(async () => {
      const status = await api.get(`/api/v1/targets/${TARGET}`);
      return allPushed.safeParse(status).success ? status : undefined;
    });
    say(`\nsave ${SAVE_ID}: phase ${save.phase}, outcome ${save.outcome}, commit ${save.commit}\n`);
    say(`${JSON.stringify(save, null, 2)}\n`);
    const { stdout } = await run('git', [`--git-dir=${repository}`, 'log', '--stat', 'main']);
    say(`\ngit log --stat main\n\n${stdout}`);
  } finally {
    await host?.stop();
    rmSync(folder, { recursive: true, force: true });
    say(`\nremoved ${folder}\n`);
  }
}

function say(text: string): void {
  process.stdout.write(text);
}

function apiClient(origin: string) {
  async function call(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${origin}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  return {
    async post(path: string, body: unknown, what: string): Promise<void> {
      const answer = await call('POST', path, body);
      say(`POST ${path} (${what}) -> ${answer.status} ${JSON.stringify(answer.body)}\n`);
      if (answer.status >= 300) throw new Error(`kubescribe refused ${what}: ${JSON.stringify(answer.body)}`);
    },
    async get(
      path: string,
      options: { orNotFound?: boolean } = {},
    ): Promise<Record<string, unknown> | undefined> {
      const answer = await call('GET', path);
      if (answer.status === 404 && options.orNotFound) return undefined;
      if (answer.status !== 200)
        throw new Error(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
  };
}

/** Polls `probe` until it returns a value, for at most WAIT_LIMIT_MS of real time. */
async function waitFor<T>(probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing happened within ${WAIT_LIMIT_MS / 1000}s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `kubescribe demo failed: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}

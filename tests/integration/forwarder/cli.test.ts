// `kubescribe forward` as a real process (compiled as the build compiles it, run through the bin
// launcher), against a protocol-level fake Kubernetes API server over HTTPS (no real one can run
// here) and a stub of kubescribe's ingest routes.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubeconfigFor } from '../../support/fake-kube-api/kubeconfig';
import type { KubeObject, ResourceType } from '../../support/fake-kube-api/object-store';
import { type FakeKubeApi, startFakeKubeApi } from '../../support/fake-kube-api/server';
import { makeLoopbackCertificate } from '../../support/fake-kube-api/tls';
import { type CompiledCli, compileCli } from './support/compiled-cli';
import { eventually } from './support/manual-delay';
import { startStubWebhook } from './support/stub-webhook';

const CONFIGMAPS: ResourceType = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  statusSubresource: false,
};
const KUBE_TOKEN = 'kube-token-cli-5b2d';
const WEBHOOK_TOKEN = 'webhook-token-cli-c0ffee';

describe('the kubescribe forward command', () => {
  let cli: CompiledCli;
  let kube: FakeKubeApi;
  let stub: Awaited<ReturnType<typeof startStubWebhook>>;
  let configFile: string;

  beforeAll(async () => {
    cli = await compileCli();
    const tls = await makeLoopbackCertificate();
    kube = await startFakeKubeApi({ types: [CONFIGMAPS], bearerToken: KUBE_TOKEN, tls });
    stub = await startStubWebhook();
    const kubeconfig = join(cli.dir, 'kubeconfig.yaml');
    await writeFile(kubeconfig, kubeconfigFor({ url: kube.url, token: KUBE_TOKEN, caCert: tls.cert }));
    configFile = join(cli.dir, 'forwarder.yaml');
    await writeFile(
      configFile,
      [
        `kubescribe: { url: "${stub.url}", target: prod, tokenEnv: KUBESCRIBE_TOKEN }`,
        `cluster: { kubeconfig: "${kubeconfig}" }`,
        'resources: [{ group: "", version: v1, resource: configmaps }]',
        'namespaces: [default]',
        `cursorFile: "${join(cli.dir, 'cursors.json')}"`,
        '',
      ].join('\n'),
    );
    for (const name of ['a', 'b']) {
      const object: KubeObject = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default' },
        data: {},
      };
      kube.create(CONFIGMAPS, object);
    }
  }, 120_000);

  afterAll(async () => {
    await kube?.close();
    await stub?.close();
    await cli?.remove();
  });

  it('prints its usage with --help', async () => {
    const { code, stdout } = await cli.run(['forward', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: kubescribe forward --config <file> [--once]');
  });

  it('imports one snapshot through the kubeconfig over TLS with --once, logging plain lines off a terminal', async () => {
    const { code, stdout, stderr } = await cli.run(['forward', '--config', configFile, '--once'], {
      KUBESCRIBE_TOKEN: WEBHOOK_TOKEN,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const events = stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events).toEqual(['SnapshotStarted', 'SnapshotPartPosted', 'SnapshotCompleted']);
    expect(stub.requests.map((r) => [r.path.split('/').pop(), r.authorization])).toEqual([
      ['parts', `Bearer ${WEBHOOK_TOKEN}`],
      ['complete', `Bearer ${WEBHOOK_TOKEN}`],
    ]);
    expect(kube.requests.at(-1)?.authorization).toBe(`Bearer ${KUBE_TOKEN}`);
    expect(stdout).not.toContain(WEBHOOK_TOKEN);
  });

  it('resumes from its cursor after --once, follows live changes until SIGTERM, then exits 0 with its cursor saved', async () => {
    const child = spawn(
      process.execPath,
      [join(cli.dir, 'bin/kubescribe.js'), 'forward', '--config', configFile],
      {
        cwd: cli.dir,
        env: { PATH: process.env.PATH ?? '', HOME: cli.dir, KUBESCRIBE_TOKEN: WEBHOOK_TOKEN },
      },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      // The --once run above saved a cursor: this run resumes with a watch, no snapshot.
      await eventually(() => kube.openWatches() === 1, 'the watch');
      kube.create(CONFIGMAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'live', namespace: 'default' },
      });
      await eventually(() => stdout.includes('"EventsPosted"'), 'the live event', 30_000);
    } finally {
      child.kill('SIGTERM');
    }

    expect(await exited).toBe(0);
    expect(stdout).not.toContain('"SnapshotStarted"');
    const cursors = JSON.parse(await readFile(join(cli.dir, 'cursors.json'), 'utf8')) as { cursors: object };
    expect(cursors.cursors).toEqual({ 'core/v1/configmaps@default': String(kube.store.currentRevision) });
  });

  it('refuses to start when the token variable is missing, naming it', async () => {
    const { code, stderr } = await cli.run(['forward', '--config', configFile, '--once']);
    expect(code).toBe(2);
    expect(stderr).toContain('KUBESCRIBE_TOKEN');
  });

  it('refuses a bad configuration with the field path', async () => {
    const bad = join(cli.dir, 'bad.yaml');
    await writeFile(bad, 'kubescribe: { url: "not a url", target: prod }\nresources: []\n');
    const { code, stderr } = await cli.run(['forward', '--config', bad]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/ForwarderConfigInvalid: [\s\S]*\n {2}kubescribe\.url: [\s\S]*\n {2}resources: /);
  });

  it('says plainly that it is not in a cluster and found no kubeconfig, exiting 2 at once', async () => {
    const outside = join(cli.dir, 'outside.yaml');
    await writeFile(
      outside,
      `kubescribe: { url: "${stub.url}", target: prod }\nresources: [{ group: "", version: v1, resource: configmaps }]\n`,
    );
    const { code, stdout, stderr } = await cli.run(['forward', '--config', outside, '--once']);
    expect(code).toBe(2);
    expect(stderr).toContain('not in a cluster, and no kubeconfig was found');
    expect(stdout).not.toContain('WatchFailed');
  });

  it('says why a kubeconfig cannot load, quoting nothing of it', async () => {
    const broken = join(cli.dir, 'broken-kubeconfig.yaml');
    await writeFile(broken, 'apiVersion: v1\nusers: [ { name: x, user: { token: secret-token-4411 } }\n');
    for (const [kubeconfig, reason] of [
      [join(cli.dir, 'missing-kubeconfig.yaml'), 'there is no such file'],
      [broken, 'it is not valid YAML'],
    ] as const) {
      const file = join(cli.dir, 'with-kubeconfig.yaml');
      await writeFile(
        file,
        `kubescribe: { url: "${stub.url}", target: prod }\ncluster: { kubeconfig: "${kubeconfig}" }\nresources: [{ group: "", version: v1, resource: configmaps }]\n`,
      );
      const { code, stderr } = await cli.run(['forward', '--config', file, '--once']);
      expect(code).toBe(2);
      expect(stderr).toContain(`could not be loaded: ${reason}`);
      expect(stderr).not.toContain('secret-token-4411');
    }
  });
});

// The image, built as `npm run image` builds it and run as a container runtime would run it: the
// image's own entrypoint, command, environment, user and working directory, on its root file system
// mounted read-only, with a tmpfs /tmp and a data folder mounted as the volume. Run by
// `npm run test:image` (jest.image.config.js), not by `npm test`: a build takes minutes.
//
// The container shares this machine's network (no network namespace), so the app in it reaches the
// test's Git server on loopback and the test reaches the app's port.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createBareRepo } from '../support/git/create-bare-repo';
import { runGit } from '../support/git/run-git';
import { startGitServer } from '../support/git/start-git-server';
import { writeLoopbackCertificate } from '../support/tls/loopback-certificate';

const ROOT = resolve(__dirname, '..', '..');
const TAG = `kubescribe:${(require(join(ROOT, 'package.json')) as { version: string }).version}`;
const TOKEN = 'image-test-token-0123456789abcdef';

interface ImageConfig {
  Env?: string[];
  Entrypoint?: string[];
  Cmd?: string[];
  User?: string;
  WorkingDir?: string;
}

const buildah = (...args: string[]): string =>
  execFileSync('buildah', ['--storage-driver', 'vfs', ...args], { encoding: 'utf8' }).trim();

let container = '';
let rootfs = '';
let config: ImageConfig = {};
let workDir = '';

beforeAll(() => {
  const started = Date.now();
  execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'infra', 'image', 'build-image.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  process.stderr.write(`image built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  config = (JSON.parse(buildah('inspect', '--type', 'image', TAG)) as { OCIv1: { config: ImageConfig } })
    .OCIv1.config;
  container = buildah('from', '--pull-never', TAG);
  rootfs = buildah('mount', container);
  workDir = mkdtempSync(join(tmpdir(), 'kubescribe-image-'));
}, 1_200_000);

afterAll(() => {
  if (container) buildah('rm', container);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/**
 * Starts the image's command (`command`, else its Cmd) after its Entrypoint, in a mount namespace of
 * its own: the image's root read-only, /tmp a tmpfs, `data` at the data folder, /dev and /proc.
 * `entrypoint` replaces the image's Entrypoint (to probe the file system as the image's user).
 */
function runContainer({
  command,
  entrypoint,
  env = {},
  data,
}: {
  command?: string[];
  entrypoint?: string[];
  env?: Record<string, string>;
  data: string;
}): { child: ChildProcess; output: () => string; exited: Promise<number | null>; stop(): Promise<void> } {
  const [uid, gid] = (config.User ?? '0:0').split(':');
  const argv = [...(entrypoint ?? config.Entrypoint ?? []), ...(command ?? config.Cmd ?? [])];
  const mounts = [
    'set -e',
    'mount --make-rprivate /',
    'mount --bind "$R" "$R"',
    'mount -o remount,bind,ro "$R"',
    'mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"',
    'mount --bind "$DATA" "$R/var/lib/kubescribe"',
    'mount --rbind /dev "$R/dev"',
    'mount -t proc proc "$R/proc"',
    `exec unshare --root="$R" --wd="${config.WorkingDir || '/'}" --setuid ${uid} --setgid ${gid ?? uid} -- "$@"`,
  ].join('\n');
  const imageEnv = Object.fromEntries(
    (config.Env ?? []).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const child = spawn('unshare', ['--mount', '--fork', '--', 'sh', '-c', mounts, 'container', ...argv], {
    env: { ...imageEnv, ...env, R: rootfs, DATA: data },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: `unshare --fork` does not pass signals on, so `stop` signals the group.
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
  };
  return { child, output: () => output, exited, stop };
}

/** A folder the image's user owns, for the data volume. */
function dataVolume(): string {
  const dir = mkdtempSync(join(workDir, 'data-'));
  const [uid, gid] = (config.User ?? '0:0').split(':').map(Number);
  chownSync(dir, uid ?? 0, gid ?? uid ?? 0);
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? done(address.port) : fail(new Error('no port')),
      );
    });
  });
}

/** A self-signed certificate for 127.0.0.1 in `dir` (tls.crt, tls.key), readable by the image's user. */
function selfSignedCertificate(dir: string): { cert: string } {
  const { cert } = writeLoopbackCertificate(dir);
  const [uid, gid] = (config.User ?? '0:0').split(':').map(Number);
  for (const file of ['tls.crt', 'tls.key']) chownSync(join(dir, file), uid ?? 0, gid ?? uid ?? 0);
  return { cert };
}

/** An HTTPS request that trusts `ca` only; resolves with the status and the parsed JSON body. */
function httpsJson(
  url: string,
  ca: string,
  {
    method = 'GET',
    headers = {},
    body,
  }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((done, fail) => {
    const req = request(url, { method, headers, ca }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** Polls `probe` until it returns a value, for at most `ms`: the container runs in real time. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

describe('the image', () => {
  it('runs as a non-root user from a read-only root, the app under /app', () => {
    expect(config.User).toBe('65532:65532');
    expect(config.Cmd).toEqual(['serve']);
  });

  it('cannot write its root file system but can write /tmp and the data folder', async () => {
    const probe = `
      const fs = require('node:fs');
      const attempt = (path) => { try { fs.writeFileSync(path, 'x'); return 'written'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({ app: attempt('/app/x'), tmp: attempt('/tmp/x'), data: attempt('/var/lib/kubescribe/x'), uid: process.getuid() }));`;
    const run = runContainer({ entrypoint: ['node', '-e', probe], command: [], data: dataVolume() });
    expect(await run.exited).toBe(0);
    expect(JSON.parse(run.output().trim().split('\n').pop() ?? '{}')).toEqual({
      app: 'EROFS',
      tmp: 'written',
      data: 'written',
      uid: 65532,
    });
  });

  it('prints the forwarder’s help with `forward --help`', async () => {
    const run = runContainer({ command: ['forward', '--help'], data: dataVolume() });
    expect(await run.exited).toBe(0);
    expect(run.output()).toMatch(/^Usage: kubescribe forward --config <file>/m);
  });

  it('serves the app over HTTPS: healthz answers, and a posted change is pushed to the Git remote', async () => {
    const gitRoot = mkdtempSync(join(workDir, 'git-'));
    const remote = await createBareRepo({ root: gitRoot, name: 'state.git' });
    const server = await startGitServer({ root: gitRoot });
    const port = await freePort();
    const configuration = {
      repositories: [{ name: 'state', url: `${server.url}/state.git` }],
      targets: [
        {
          name: 'prod',
          repository: 'state',
          branch: 'main',
          path: 'clusters/prod',
          window: { idleTimeout: '1s', maxDuration: '10s' },
        },
      ],
      sources: [{ name: 'image-test', tokenEnv: 'IMAGE_TEST_TOKEN', targets: ['prod'] }],
      server: { host: '127.0.0.1', port, auth: 'required' },
    };
    const data = dataVolume();
    const { cert } = selfSignedCertificate(data);
    const app = runContainer({
      env: {
        KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(configuration),
        IMAGE_TEST_TOKEN: TOKEN,
        KUBESCRIBE_TLS_CERT_FILE: '/var/lib/kubescribe/tls.crt',
        KUBESCRIBE_TLS_KEY_FILE: '/var/lib/kubescribe/tls.key',
      },
      data,
    });
    const url = `https://127.0.0.1:${port}`;
    try {
      const health = await until('healthz', 60_000, async () => {
        if (app.child.exitCode !== null) throw new Error(`the app exited: ${app.output()}`);
        const response = await httpsJson(`${url}/api/healthz`, cert);
        return response.status === 200 ? response.body : undefined;
      }).catch((error: Error) => {
        throw new Error(`${error.message}\n${app.output()}`);
      });
      expect(health).toEqual({ status: 'ok' });

      const change = {
        events: [
          {
            type: 'ADDED',
            resource: 'configmaps',
            object: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'hello', namespace: 'default' },
              data: { greeting: 'hi' },
            },
          },
        ],
      };
      const posted = await httpsJson(`${url}/api/v1/targets/prod/events`, cert, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(change),
      });
      expect(posted.status).toBe(202);

      let status: unknown;
      const pushed = await until('the push', 60_000, async () => {
        status = (
          await httpsJson(`${url}/api/v1/targets/prod`, cert, {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).body;
        return (status as { publication?: { lastPush?: { commit: string } | null } }).publication?.lastPush
          ?.commit;
      }).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(status)}\n${app.output()}`);
      });
      const head = (await runGit({ args: ['--git-dir', remote, 'rev-parse', 'main'] })).trim();
      expect(head).toBe(pushed);
      const file = await runGit({
        args: ['--git-dir', remote, 'show', 'main:clusters/prod/default/configmaps/hello.yaml'],
      });
      expect(file).toContain('greeting: hi');
    } finally {
      await app.stop();
      await server.stop();
    }
    // SIGTERM from the kubelet stops the host cleanly.
    expect(app.output()).toMatch(/SIGTERM: stopping/);
  });
});

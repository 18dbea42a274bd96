/**
 * A small publication opens its push before its commits are built: the POST's headers go first and
 * its body (commands, then pack) follows once built, chunked, as git itself sends any push larger
 * than `http.postBuffer` (remote-curl.c, post_rpc: "Transfer-Encoding: chunked"). A web server
 * starts the CGI on the headers (RFC 3875 section 4.1.1: no CONTENT_LENGTH, the body read to its
 * end), so `git http-backend` and receive-pack start while the commits are built. A request cut off
 * before its commands applies nothing: receive-pack reads no command (builtin/receive-pack.c,
 * read_head_info) and exits.
 *
 * The relay here stands between the client and the real `git http-backend` server and passes bytes
 * as they come (the fault proxy reads a body whole before forwarding it), so that when the headers
 * arrive, and whether a body was cut off, is seen as the server sees it.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createObjectStore } from '../../../shared/git/object-store';
import { openHttpSession, pushAnswersRead } from '../../../shared/git/open-http-session';
import { publish } from '../../../shared/git/publish';
import { type GitWrite, systemClock } from '../../../shared/git/types';
import { aWrite } from '../../support/git/a-write';
import { publishFile } from '../../support/git/publish-file';
import { runGit } from '../../support/git/run-git';
import { fsck, type GitWorld, startGitWorld } from './git-fixture';

type Seen = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** When its headers arrived, and when it closed (once it has), counted in the relay's events. */
  arrived: number;
  closedAt?: number;
  /** Whether the client closed it before its body's end. */
  cutOff: Promise<boolean>;
};

/** A relay to `upstream` passing every byte as it comes; `seen` lists requests as their headers arrive. */
async function startRelay(upstream: string) {
  const seen: Seen[] = [];
  const waiting: (() => void)[] = [];
  let events = 0;
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '/', upstream);
    const { host: _host, ...headers } = req.headers;
    const forward = http.request(target, { method: req.method, headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
    const request: Seen = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      arrived: ++events,
      cutOff: new Promise<boolean>((resolve) =>
        req.once('close', () => {
          request.closedAt = ++events;
          if (!req.complete) forward.destroy();
          resolve(!req.complete);
        }),
      ),
    };
    seen.push(request);
    for (const wake of waiting.splice(0)) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** The receive-pack POSTs whose headers have arrived, from `from` on. */
  const pushes = (from = 0) =>
    seen.slice(from).filter((r) => r.method === 'POST' && r.path.endsWith('/git-receive-pack'));
  return {
    url,
    seen,
    /** Resolves with the first receive-pack POST from `from` on, once its headers have arrived. */
    async push(from = 0): Promise<Seen> {
      for (;;) {
        const [found] = pushes(from);
        if (found) return found;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    pushes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let world: GitWorld;
let relay: Awaited<ReturnType<typeof startRelay>>;
beforeAll(async () => {
  world = await startGitWorld();
  relay = await startRelay(world.serverUrl);
});
afterAll(async () => {
  await relay.stop();
  await world.stop();
});

/** A repository behind the relay: its URL there, and its path. */
async function relayedRepo() {
  const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
  return { url: `${relay.url}${new URL(url).pathname}`, gitdir };
}

const sha1 = (type: string, data: Buffer) =>
  createHash('sha1').update(`${type} ${data.length}\0`).update(data).digest('hex');

/** A store holding a root commit whose tree holds `file`: its objects as a push carries them. */
function rootCommitOf(file: string) {
  const store = createObjectStore();
  const blob = Buffer.from(`${file}\n`);
  const tree = Buffer.concat([Buffer.from(`100644 ${file}\0`), Buffer.from(sha1('blob', blob), 'hex')]);
  const who = 'Alice Example <alice@example.invalid> 1750000000 +0000';
  const commit = Buffer.from(`tree ${sha1('tree', tree)}\nauthor ${who}\ncommitter ${who}\n\nroot\n`);
  store.add('blob', blob);
  store.add('tree', tree);
  return { store, head: store.add('commit', commit) };
}

const sessionOf = async (url: string) =>
  openHttpSession({
    remote: { kind: 'http', url },
    branch: 'opened',
    cacheDir: await world.cacheDir(),
    clock: systemClock,
    callTimeoutMs: 30_000,
  });

describe('a push opened ahead', () => {
  it('reaches the server before what it carries is given, and lands once it is', async () => {
    const { url, gitdir } = await relayedRepo();
    const from = relay.seen.length;
    const opening = (await sessionOf(url)).openPush!({ branch: 'opened' });
    // nothing is built yet: the server has the request, its body still to come
    const request = await relay.push(from);
    expect(request.headers['transfer-encoding']).toBe('chunked');
    expect(request.headers['content-length']).toBeUndefined();

    const { store, head } = rootCommitOf('b.yaml');
    expect(await opening.push({ oldOid: null, newOid: head, store })).toEqual({ kind: 'ok' });
    expect(await request.cutOff).toBe(false);
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'opened'] })).toBe(head);
    await fsck(gitdir);
  });

  it('cancelled, is cut off before any command, and the branch stays as it was', async () => {
    const { url, gitdir } = await relayedRepo();
    const before = await runGit({ args: ['--git-dir', gitdir, 'for-each-ref'] });
    const from = relay.seen.length;
    const opening = (await sessionOf(url)).openPush!({ branch: 'opened' });
    const request = await relay.push(from);
    opening.cancel();
    expect(await request.cutOff).toBe(true);
    // what is built after is not sent on it
    const { store, head } = rootCommitOf('b.yaml');
    await expect(opening.push({ oldOid: null, newOid: head, store })).rejects.toThrow(
      'the publication ended without this push',
    );
    expect(await runGit({ args: ['--git-dir', gitdir, 'for-each-ref'] })).toBe(before);
    await fsck(gitdir);
  });
});

describe('a publication', () => {
  it('opens the push of a few files ahead, and declares the length of one that builds many', async () => {
    const { url, gitdir } = await relayedRepo();
    const cacheDir = await world.cacheDir();
    const from = relay.seen.length;
    expect(await publishFile({ url, cacheDir, file: 'b.yaml' })).toMatchObject({ kind: 'published' });
    expect((await relay.push(from)).headers['transfer-encoding']).toBe('chunked');

    const next = relay.seen.length;
    const files = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`many/f-${i}.yaml`, `${i}\n`]));
    expect(
      await publish({ remote: { kind: 'http', url }, branch: 'main', writes: [aWrite({ files })], cacheDir }),
    ).toMatchObject({ kind: 'published' });
    const large = await relay.push(next);
    expect(large.headers['transfer-encoding']).toBeUndefined();
    expect(Number(large.headers['content-length'])).toBeGreaterThan(0);
    await fsck(gitdir);
  });

  it('that ends without pushing (its write is on the branch already) cuts its opened push off, and the next publishes', async () => {
    const { url, gitdir } = await relayedRepo();
    const cacheDir = await world.cacheDir();
    const publishWrite = (write: GitWrite) =>
      publish({ remote: { kind: 'http', url }, branch: 'main', writes: [write], cacheDir });
    const write = aWrite({ files: { 'c.yaml': 'c\n' } });
    expect(await publishWrite(write)).toMatchObject({ kind: 'published' });
    // the next push waits for this one's answer to be read (its connection is the next one's)
    await pushAnswersRead();
    // the same write again, as after a lost reply: found on the branch by its trailer, not pushed
    const from = relay.seen.length;
    expect(await publishWrite(write)).toMatchObject({ kind: 'published', settledByRemoteEvidence: true });
    expect(
      (await runGit({ args: ['--git-dir', gitdir, 'log', '--format=%s', 'main'] })).split('\n'),
    ).toHaveLength(2);

    expect(await publishFile({ url, cacheDir, file: 'd.yaml' })).toMatchObject({ kind: 'published' });
    // the next publication's push is the last; the opened one, cut off as the publication ended,
    // closed before it arrived (left open, a request is dropped only seconds later, by the server
    // or by the connection's idle bound). Cancelled before its connection was made (on a loaded
    // machine), the opened push does not reach the server: then there is no earlier one.
    const pushes = relay.pushes(from);
    const next = pushes.at(-1)!;
    const opened = pushes.slice(0, -1);
    expect(opened.length).toBeLessThanOrEqual(1);
    for (const request of opened) {
      expect(request.closedAt).toBeLessThan(next.arrived);
      expect(await request.cutOff).toBe(true);
    }
    expect(await next.cutOff).toBe(false);
    await fsck(gitdir);
  });
});

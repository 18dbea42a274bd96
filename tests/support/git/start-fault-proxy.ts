import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/** Which smart-HTTP request a fault applies to. */
export type GitRequestKind = 'refs' | 'ls-refs' | 'fetch' | 'receive-refs' | 'push';

export type Fault =
  /** Close the connection before anything reaches the server. */
  | { kind: 'refuse' }
  /** Read the request and never answer (the connection stays open). */
  | { kind: 'stall' }
  /** Forward; send the status, headers and a few bytes of the reply, then hold the connection. */
  | { kind: 'stallBody' }
  /** Answer with this HTTP status (and these headers and body) without contacting the server. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Forward; let the server finish (the push lands), then drop the connection: a lost reply. */
  | { kind: 'dropReply' }
  /** Wait, then forward. */
  | { kind: 'delay'; ms: number }
  /** Run something first (e.g. a concurrent writer's push), then forward. */
  | { kind: 'before'; run: () => Promise<void> };

export type ProxiedRequest = {
  kind: GitRequestKind;
  path: string;
  fault?: Fault['kind'];
  /** Whether the request carried an Authorization header. */
  authorized: boolean;
  /** Bytes of the answer the client got (0 until it is sent). */
  replyBytes: number;
  /** When the request arrived (epoch ms, real clock). */
  at: number;
  /** The proxy's `authorize` refused the request's credentials (401, or Azure Repos' 203). */
  credentialsRefused?: true;
};

/**
 * Which Git host the proxy behaves as, beyond `git http-backend` itself, from each host's
 * documented behaviour:
 * - `azure-repos`: drops `Git-Protocol` (protocol v0 only); answers 203 with a sign-in page to bad
 *   credentials or a User-Agent not starting with `git/`; refuses an upload-pack request asking for
 *   neither `multi_ack` nor `multi_ack_detailed` with 400 TF401041; reports a lost race as TF401028.
 * - `github`: reports a lost race as `cannot lock ref`; lists pull request refs (`refs/pull/N/head`,
 *   seeded by the fixture) to a client that asks for every ref.
 * - `gitlab`: redirects `info/refs` of a URL without `.git` to the `.git` URL; a POST to the URL
 *   without `.git` is not found.
 * - `current-git`: git 2.51's batched ref updates: a lost race is `incorrect old value provided`.
 */
export type GitHostMode = 'http-backend' | 'azure-repos' | 'github' | 'gitlab' | 'current-git';

/** What each host says in a push report when the branch moved under the push. */
const LOST_RACE_SAID: Record<GitHostMode, ((ref: string) => string) | null> = {
  'http-backend': null,
  'azure-repos': (ref) =>
    `TF401028: The reference '${ref}' has already been updated by another client, so you cannot update it. Please try again.`,
  github: (ref) =>
    `cannot lock ref '${ref}': is at 1111111111111111111111111111111111111111 but expected 2222222222222222222222222222222222222222`,
  gitlab: null,
  'current-git': () => 'incorrect old value provided',
};

const SIGN_IN_PAGE =
  '<!DOCTYPE html><html><head><title>Azure DevOps Services | Sign In</title></head><body>Sign in to your account</body></html>';

function pkt(payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0')), payload]);
}

function* packets(buf: Buffer): Generator<Buffer | null> {
  for (let i = 0; i + 4 <= buf.length; ) {
    const len = Number.parseInt(buf.toString('latin1', i, i + 4), 16);
    if (len <= 2) {
      yield null;
      i += 4;
    } else {
      yield buf.subarray(i + 4, i + len);
      i += len;
    }
  }
}

/** A side-band receive-pack reply with each lost-race `ng` reason replaced by what `say` returns. */
function rewriteLostRace(reply: Buffer, say: (ref: string) => string): Buffer {
  const messages: Buffer[] = [];
  const report: Buffer[] = [];
  for (const packet of packets(reply)) {
    if (packet === null) continue;
    if (packet[0] === 1) report.push(packet.subarray(1));
    else messages.push(pkt(packet));
  }
  const lines: Buffer[] = [];
  for (const line of packets(Buffer.concat(report))) {
    if (line === null) continue;
    const text = line.toString('utf8');
    const ng = /^ng (\S+) (.*)\n?$/.exec(text);
    const lost =
      ng && /failed to update ref|cannot lock ref|failed to lock|stale info|fetch first/.test(ng[2]!);
    lines.push(pkt(Buffer.from(lost ? `ng ${ng[1]} ${say(ng[1]!)}\n` : text)));
  }
  const inner = Buffer.concat([...lines, Buffer.from('0000')]);
  return Buffer.concat([...messages, pkt(Buffer.concat([Buffer.from([1]), inner])), Buffer.from('0000')]);
}

export type FaultProxy = {
  url: string;
  /** Applies `fault` to the next `times` requests of that kind, after letting `skip` of them through. */
  inject(rule: { on: GitRequestKind; fault: Fault; times?: number; skip?: number }): void;
  /** Every request seen, in order. */
  readonly requests: readonly ProxiedRequest[];
  /** Connections the proxy is holding (stalls) that the client has not closed yet. */
  heldOpen(): number;
  /** Connections clients opened to the proxy so far (a kept connection carries many requests). */
  connectionsOpened(): number;
  /** Forgets the faults not yet applied (call it between tests). */
  reset(): void;
  stop(): Promise<void>;
};

function kindOf(method: string, url: URL, body: Buffer): GitRequestKind {
  const service = url.searchParams.get('service') ?? url.pathname.split('/').pop();
  if (method === 'GET') return service === 'git-receive-pack' ? 'receive-refs' : 'refs';
  if (service === 'git-receive-pack') return 'push';
  return body.includes('command=ls-refs') ? 'ls-refs' : 'fetch';
}

/**
 * A fault-injecting proxy in front of a Git smart-HTTP server, on a random loopback port:
 * `${proxy.url}/<repo>.git` reaches `${upstream}/<repo>.git` unless a fault says otherwise.
 *
 * @example
 * const proxy = await startFaultProxy({ upstream: server.url });
 * proxy.inject({ on: 'push', fault: { kind: 'dropReply' } });
 */
export async function startFaultProxy({
  upstream,
  host = 'http-backend',
  authorize,
  tls,
}: {
  upstream: string;
  host?: GitHostMode;
  /**
   * The host checks credentials itself (a token that expires, as an Entra ID or GitHub App token
   * does): a request whose Authorization header this refuses is answered 401 (Azure Repos: 203 and
   * its sign-in page), checked after any fault's `before` ran.
   */
  authorize?: (authorization: string | undefined) => boolean;
  /** Serve https with this key and certificate (a host whose certificate a private CA signed). */
  tls?: { key: string; cert: string };
}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const rules: { on: GitRequestKind; fault: Fault; times: number; skip: number }[] = [];
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  let opened = 0;
  const held = new Set<http.ServerResponse>();
  const agent = new http.Agent({ keepAlive: false });

  const handle: http.RequestListener = async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return;
    }
    const body = Buffer.concat(chunks);
    const kind = kindOf(req.method ?? 'GET', url, body);
    const rule = rules.find((r) => r.on === kind && r.times > 0);
    let fault: Fault | undefined;
    if (rule) {
      if (rule.skip > 0) rule.skip--;
      else {
        rule.times--;
        fault = rule.fault;
      }
    }
    const seen: ProxiedRequest = {
      kind,
      path: url.pathname,
      ...(fault ? { fault: fault.kind } : {}),
      authorized: req.headers.authorization !== undefined,
      replyBytes: 0,
      at: Date.now(),
    };
    requests.push(seen);
    const answer = (status: number, headers: Record<string, string>, text: string) => {
      seen.replyBytes = Buffer.byteLength(text);
      res.writeHead(status, headers);
      res.end(text);
    };
    if (fault?.kind === 'refuse') return void req.socket.destroy();
    if (fault?.kind === 'stall') return void held.add(res);
    if (fault?.kind === 'status') {
      return answer(
        fault.status,
        { 'content-type': 'text/plain', ...fault.headers },
        fault.body ?? `injected ${fault.status}\n`,
      );
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'before') await fault.run();
    if (authorize && !authorize(req.headers.authorization)) {
      seen.credentialsRefused = true;
      return host === 'azure-repos'
        ? answer(203, { 'content-type': 'text/html' }, SIGN_IN_PAGE)
        : answer(
            401,
            { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="git"' },
            'Bad credentials\n',
          );
    }
    const headers: http.OutgoingHttpHeaders = {
      ...req.headers,
      host: target.host,
      'content-length': String(body.length),
    };
    delete headers['transfer-encoding'];
    if (host === 'azure-repos') {
      delete headers['git-protocol'];
      if (!String(req.headers['user-agent'] ?? '').startsWith('git/'))
        return answer(203, { 'content-type': 'text/html' }, SIGN_IN_PAGE);
      const wants = /^[0-9a-f]{4}want [0-9a-f]{40} ([^\n]*)/.exec(body.toString('latin1'));
      if (kind === 'fetch' && wants && !/\bmulti_ack(_detailed)?\b/.test(wants[1]!)) {
        return answer(
          400,
          { 'content-type': 'text/plain' },
          'TF401041: The client does not support multi_ack or multi_ack_detailed, which this server requires.',
        );
      }
    }
    if (host === 'gitlab' && !/\.git\//.test(url.pathname)) {
      const repo = /^(.*?)\/(info\/refs|git-upload-pack|git-receive-pack)$/.exec(url.pathname);
      if (repo && req.method === 'GET') {
        return answer(301, { location: `${repo[1]}.git/${repo[2]}${url.search}` }, 'moved\n');
      }
      return answer(
        404,
        { 'content-type': 'text/plain' },
        'The project you were looking for could not be found.\n',
      );
    }
    const forward = http.request(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent },
      (reply) => {
        if (fault?.kind === 'dropReply') {
          reply.resume();
          reply.on('end', () => req.socket.destroy());
          return;
        }
        if (host === 'azure-repos' && reply.statusCode === 401) {
          reply.resume();
          return answer(203, { 'content-type': 'text/html' }, SIGN_IN_PAGE);
        }
        const say = LOST_RACE_SAID[host];
        if (say && kind === 'push' && reply.statusCode === 200) {
          const parts: Buffer[] = [];
          reply.on('data', (chunk: Buffer) => parts.push(chunk));
          reply.on('end', () => {
            const rewritten = rewriteLostRace(Buffer.concat(parts), say);
            seen.replyBytes = rewritten.length;
            const { 'content-length': _, 'transfer-encoding': __, ...rest } = reply.headers;
            res.writeHead(200, { ...rest, 'content-length': String(rewritten.length) });
            res.end(rewritten);
          });
          return;
        }
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.on('data', (chunk: Buffer) => {
          seen.replyBytes += chunk.length;
        });
        if (fault?.kind === 'stallBody') {
          reply.once('data', (chunk: Buffer) => {
            res.write(chunk.subarray(0, Math.min(chunk.length, 8)));
            reply.destroy();
            held.add(res);
          });
          return;
        }
        reply.pipe(res);
      },
    );
    forward.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(error));
    });
    forward.end(body);
  };
  const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  server.on(tls ? 'secureConnection' : 'connection', (socket) => {
    sockets.add(socket);
    opened++;
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inject: ({ on, fault, times = 1, skip = 0 }) => void rules.push({ on, fault, times, skip }),
    get requests() {
      return requests;
    },
    reset: () => void rules.splice(0),
    connectionsOpened: () => opened,
    heldOpen: () => [...held].filter((res) => res.socket && !res.socket.destroyed).length,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

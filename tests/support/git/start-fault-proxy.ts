import http from 'node:http';
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
  /** Answer with this HTTP status without contacting the server. */
  | { kind: 'status'; status: number }
  /** Forward; let the server finish (the push lands), then drop the connection: a lost reply. */
  | { kind: 'dropReply' }
  /** Wait, then forward. */
  | { kind: 'delay'; ms: number }
  /** Run something first (e.g. a concurrent writer's push), then forward. */
  | { kind: 'before'; run: () => Promise<void> };

export type ProxiedRequest = { kind: GitRequestKind; path: string; fault?: Fault['kind'] };

export type FaultProxy = {
  url: string;
  /** Applies `fault` to the next `times` requests of that kind, after letting `skip` of them through. */
  inject(rule: { on: GitRequestKind; fault: Fault; times?: number; skip?: number }): void;
  /** Every request seen, in order. */
  readonly requests: readonly ProxiedRequest[];
  /** Connections the proxy is holding (stalls) that the client has not closed yet. */
  heldOpen(): number;
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
export async function startFaultProxy({ upstream }: { upstream: string }): Promise<FaultProxy> {
  const target = new URL(upstream);
  const rules: { on: GitRequestKind; fault: Fault; times: number; skip: number }[] = [];
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const held = new Set<http.ServerResponse>();
  const agent = new http.Agent({ keepAlive: false });

  const server = http.createServer(async (req, res) => {
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
    requests.push({ kind, path: url.pathname, ...(fault ? { fault: fault.kind } : {}) });
    if (fault?.kind === 'refuse') return void req.socket.destroy();
    if (fault?.kind === 'stall') return void held.add(res);
    if (fault?.kind === 'status') {
      res.writeHead(fault.status, { 'content-type': 'text/plain' });
      return void res.end(`injected ${fault.status}\n`);
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    if (fault?.kind === 'before') await fault.run();
    const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
    delete headers['transfer-encoding'];
    const forward = http.request(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent },
      (reply) => {
        if (fault?.kind === 'dropReply') {
          reply.resume();
          reply.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(reply.statusCode ?? 502, reply.headers);
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
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inject: ({ on, fault, times = 1, skip = 0 }) => void rules.push({ on, fault, times, skip }),
    get requests() {
      return requests;
    },
    reset: () => void rules.splice(0),
    heldOpen: () => [...held].filter((res) => res.socket && !res.socket.destroyed).length,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

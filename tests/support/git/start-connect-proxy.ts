import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

/** What the proxy was asked: a CONNECT tunnel's `host:port`, or a whole plain-http request's URL. */
export type ProxyRequest = {
  method: string;
  target: string;
  /** The Proxy-Authorization header, if any. */
  proxyAuthorization?: string;
  /** An Authorization header the proxy could read (never, inside a tunnel). */
  authorization?: string;
};

export type ConnectProxy = {
  url: string;
  readonly requests: readonly ProxyRequest[];
  stop(): Promise<void>;
};

/**
 * A forward proxy on loopback, as corporate networks run one: CONNECT opens a TCP tunnel (the
 * proxy sees only `host:port`), and a plain-http request in absolute form is forwarded. With
 * `credentials` (`user:password`), anything without that `Proxy-Authorization` is answered 407.
 */
export async function startConnectProxy({
  credentials,
}: {
  credentials?: string;
} = {}): Promise<ConnectProxy> {
  const requests: ProxyRequest[] = [];
  const sockets = new Set<Socket>();
  const expected = credentials ? `Basic ${Buffer.from(credentials).toString('base64')}` : undefined;
  const allowed = (req: http.IncomingMessage) => !expected || req.headers['proxy-authorization'] === expected;
  const record = (req: http.IncomingMessage) =>
    requests.push({
      method: req.method ?? '',
      target: req.url ?? '',
      ...(req.headers['proxy-authorization']
        ? { proxyAuthorization: req.headers['proxy-authorization'] }
        : {}),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
  const server = http.createServer((req, res) => {
    record(req);
    if (!allowed(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' });
      return void res.end();
    }
    const { 'proxy-authorization': _, ...headers } = req.headers;
    const forward = http.request(req.url ?? '', { method: req.method, headers, agent: false }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    forward.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(forward);
  });
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) => {
    record(req);
    if (!allowed(req)) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\n\r\n',
      );
      return;
    }
    const [host, port] = (req.url ?? '').split(/:(?=\d+$)/);
    const upstream = net.connect(Number(port), host?.replace(/^\[|\]$/g, ''), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

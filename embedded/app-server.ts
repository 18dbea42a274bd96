/**
 * Serves the app's HTTP functions at `/api/<route>`: builds the worker's RPC HTTP data, invokes the
 * function through the programming model, and writes the response it converted. A request is
 * refused before any function runs when its Host is not a name the server answers to (400/421),
 * its path is not valid percent-encoding (400), its source already has its limit of requests in
 * flight (429 + Retry-After), the server already serves its limit of requests (503 + Retry-After)
 * or its declared body is over the limit (413); probes (`request-limits.ts`) have an allowance of
 * their own. Headers and the whole request have deadlines (408). The body is read only when the
 * function reads it, so a function that refuses a request first (a missing token) reads none of it;
 * a body that grows past the limit while it is read is answered 413 by the host.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { HostContext } from './host-context';
import { allowedHostNames, hostHeaderProblem } from './host-header';
import { BodyTooLargeError, sendJson } from './http-body';
import { findRoute, MalformedPathError } from './http-routes';
import { invokeFunction } from './invoke';
import { requestLimits } from './request-limits';

interface RpcHttpResponse {
  statusCode?: string;
  headers?: Record<string, string>;
  cookies?: { name: string; value: string; path?: string; maxAge?: { value: number } }[];
  body?: { bytes?: Uint8Array; string?: string };
}

/** How the app server listens and what it takes. */
export interface AppServerOptions {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** Requests served at once; more are answered 503 with Retry-After. */
  maxConcurrentRequests: number;
  /** Requests one source (a token, else an address) has in flight; more are answered 429 with Retry-After. */
  maxRequestsPerSource: number;
  /** How long a client has to send a request's headers; then 408. */
  headersTimeoutMs: number;
  /** How long a client has to send a whole request, headers and body; then 408. */
  requestTimeoutMs: number;
  /** Host names the server answers to besides loopback names and the address it is bound to. */
  allowedHosts?: readonly string[];
  /** PEM certificate chain and key: serve HTTPS (what admission webhooks and the forwarder require). */
  tls?: AppServerTls;
}

/** The app server's certificate, PEM. */
export interface AppServerTls {
  cert: string | Buffer;
  key: string | Buffer;
}

/** Starts the app server on `host:port` (port 0 picks a free one). */
export async function startAppServer(
  host: HostContext,
  functions: () => Iterable<import('./core-module').RegisteredFunction>,
  options: AppServerOptions,
): Promise<{ server: Server; url: string }> {
  const allowed = allowedHostNames(options.host, options.allowedHosts);
  const limits = requestLimits(options);
  // the response a connection is writing, so that a deadline never corrupts one already started
  const responding = new WeakMap<Socket, ServerResponse>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const hostProblem = hostHeaderProblem(req.headers.host, allowed);
    if (hostProblem) {
      const error = hostProblem.status === 400 ? 'invalid-input' : 'misdirected-request';
      return refuse(req, res, hostProblem.status, { error, message: hostProblem.message });
    }
    const admitted = limits.admit(req);
    if (typeof admitted !== 'function') {
      const { status, ...body } = admitted;
      return refuse(req, res, status, body, { 'retry-after': '1' });
    }
    responding.set(req.socket, res);
    res.once('close', () => {
      admitted();
      responding.delete(req.socket);
    });
    serve(host, functions, req, res, options.bodyLimitBytes).catch((e: unknown) => {
      if (res.headersSent || req.socket.destroyed) return void res.end();
      if (e instanceof BodyTooLargeError) return refuse(req, res, 413, tooLarge(e.limitBytes));
      if (e instanceof MalformedPathError)
        return sendJson(res, 400, { error: 'invalid-input', message: e.message });
      host.log('error', 'HttpFunctionFailed', {
        url: req.url,
        error: e instanceof Error ? e.message : String(e),
      });
      sendJson(res, 500, { error: 'internal-error', message: 'The function failed.' });
    });
  };
  const deadlines = {
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    // how often Node checks the deadlines: a tenth of the shorter, within 50 ms and 1 s
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(options.headersTimeoutMs / 10))),
  };
  const server: Server = options.tls
    ? createTlsServer({ cert: options.tls.cert, key: options.tls.key, ...deadlines }, handle)
    : createServer(deadlines, handle);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, responding.get(socket), options),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { server, url: `${options.tls ? 'https' : 'http'}://${shownHost}:${port}` };
}

/**
 * What Node's server does with a connection that failed before or while its request was read
 * (lib/_http_server.js, socketOnError), with the contract's JSON body: a missed deadline is 408,
 * headers too large 431, anything else that is not HTTP 400; nothing is written over a response
 * already started, and a reset connection is only closed.
 */
function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  response: ServerResponse | undefined,
  options: Pick<AppServerOptions, 'headersTimeoutMs' | 'requestTimeoutMs'>,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent) return void socket.destroy();
  const [status, text, body] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ([
          408,
          'Request Timeout',
          {
            error: 'request-timeout',
            message: response
              ? `The request body was not received within ${options.requestTimeoutMs} ms of the request's start.`
              : `The request headers were not received within ${options.headersTimeoutMs} ms.`,
          },
        ] as const)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ([
            431,
            'Request Header Fields Too Large',
            { error: 'invalid-input', message: 'The request headers are too large.' },
          ] as const)
        : ([
            400,
            'Bad Request',
            { error: 'invalid-input', message: 'The request is not valid HTTP/1.1.' },
          ] as const);
  const json = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
  socket.destroySoon();
}

/** Answers without reading the body, and closes the connection rather than drain a body nobody wants. */
function refuse(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: { error: string; message: string },
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, body, { connection: 'close', ...headers });
  req.resume();
}

async function serve(
  host: HostContext,
  functions: () => Iterable<import('./core-module').RegisteredFunction>,
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const path = url.pathname;
  // Prometheus scrapes `/metrics` by convention: it reaches the app's `metrics` route, if it has one.
  const scrape = path.toLowerCase() === '/metrics';
  if (!scrape && !path.toLowerCase().startsWith('/api/') && path.toLowerCase() !== '/api') {
    return sendJson(res, 404, { error: 'not-found', message: `No function serves ${path}.` });
  }
  const route = findRoute(functions(), req.method ?? 'GET', scrape ? path : path.slice(4));
  if (!route)
    return sendJson(res, 404, { error: 'not-found', message: `No function serves ${req.method} ${path}.` });
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new BodyTooLargeError(limit);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? lazyBody(req, limit, () => refuse(req, res, 413, tooLarge(limit))) : undefined;
  if (!body) req.resume();
  const http = {
    method,
    url: url.href,
    headers,
    query: Object.fromEntries(url.searchParams),
    params: route.params,
    // The programming model takes a ready Request as the worker's streaming mode builds it: the body
    // then flows from the socket only when the function reads it.
    nativeRequest: new Request(url.href, {
      method,
      headers,
      ...(body ? { body: body.stream, duplex: 'half' } : {}),
    } as RequestInit),
  };
  const out = await invokeFunction({
    fn: route.fn,
    inputs: [{ name: route.fn.triggerName, data: { http } }, ...host.clientInputs(route.fn)],
    log: host.functionLog,
  });
  // The host already answered 413 while the function read the body.
  if (res.headersSent) return void res.end();
  if (body && !body.settled()) {
    // The function answered without reading all of the body: the rest is not worth receiving.
    res.setHeader('connection', 'close');
    body.discard();
  }
  const response = (out?.http ?? {}) as RpcHttpResponse;
  const status = Number(response.statusCode ?? 200);
  for (const [k, v] of Object.entries(response.headers ?? {})) res.setHeader(k, v);
  const cookies = (response.cookies ?? []).map(
    (c) => `${c.name}=${c.value}${c.path ? `; Path=${c.path}` : ''}`,
  );
  if (cookies.length) res.setHeader('set-cookie', cookies);
  res.statusCode = status;
  const b = response.body;
  res.end(b?.bytes ? Buffer.from(b.bytes) : (b?.string ?? ''));
}

function tooLarge(limit: number): { error: string; message: string } {
  return { error: 'payload-too-large', message: new BodyTooLargeError(limit).message };
}

/**
 * The request body as a stream that pulls from the socket only as it is read, and fails (after
 * `onTooLarge` answered the request) once more than `limit` bytes arrived.
 */
function lazyBody(
  req: IncomingMessage,
  limit: number,
  onTooLarge: () => void,
): { stream: ReadableStream<Uint8Array>; settled: () => boolean; discard: () => void } {
  let size = 0;
  let settled = false;
  const discard = () => {
    settled = true;
    req.removeAllListeners('data');
    req.resume();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.pause();
        req.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            discard();
            onTooLarge();
            controller.error(new BodyTooLargeError(limit));
            return;
          }
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once('end', () => {
          if (settled) return;
          settled = true;
          controller.close();
        });
        req.once('error', (error) => {
          if (settled) return;
          settled = true;
          controller.error(error);
        });
      },
      pull() {
        if (!settled) req.resume();
      },
      cancel: discard,
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
  return { stream, settled: () => settled, discard };
}

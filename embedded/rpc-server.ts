/**
 * The durable extension's local RPC API (`/durabletask/...`), which `df.getClient()` calls over HTTP
 * when its binding data carries `rpcBaseUrl`. It listens on loopback only, on its own port, so the
 * management API is never exposed with the app's routes. Loopback is not a boundary between local
 * processes, so every call must also carry the host's secret: the first path segment of the base
 * URL, random per start, handed to the app only through its client binding and never logged. A
 * request whose Host is not a loopback name (a DNS-rebinding page in a browser) is refused too.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ClientApi, type InstanceFilter, UnknownFunctionError } from './client-api';
import { hostHeaderProblem, isLoopbackName } from './host-header';
import { BodyTooLargeError, readBody, sendJson } from './http-body';
import { InstanceExistsError, InvalidInstanceIdError } from './instances';

/** Starts the RPC server on 127.0.0.1 (random port); resolves with the server and its base URL. */
export async function startRpcServer(
  client: ClientApi,
  options: { bodyLimitBytes: number },
): Promise<{ server: Server; baseUrl: string; port: number }> {
  const secret = randomBytes(32).toString('base64url');
  const server = createServer((req, res) => {
    handle(client, req, res, { limit: options.bodyLimitBytes, secret }).catch((e: unknown) => {
      if (e instanceof BodyTooLargeError) return sendJson(res, 413, { message: e.message });
      if (e instanceof SyntaxError) return sendJson(res, 400, { message: 'The body is not JSON.' });
      if (e instanceof BadQueryError) return sendJson(res, 400, { message: e.message });
      sendJson(res, 500, { message: e instanceof Error ? e.message : String(e) });
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, baseUrl: `http://127.0.0.1:${port}/${secret}/durabletask/`, port };
}

/** Compares in constant time (hashes first, so the lengths match whatever was presented). */
function sameSecret(presented: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(secret));
}

const parseJson = (body: Buffer): unknown => (body.length === 0 ? null : JSON.parse(body.toString('utf8')));

/** A query parameter that is not what the API expects (answered with 400). */
class BadQueryError extends Error {}

function timeParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (!value) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new BadQueryError(`${name} must be an ISO date-time, got "${value}".`);
  return ms;
}

function filterOf(url: URL): InstanceFilter {
  const statuses = url.searchParams.get('runtimeStatus');
  return {
    createdTimeFrom: timeParam(url, 'createdTimeFrom'),
    createdTimeTo: timeParam(url, 'createdTimeTo'),
    runtimeStatus: statuses ? statuses.split(',').filter(Boolean) : undefined,
  };
}

async function handle(
  client: ClientApi,
  req: IncomingMessage,
  res: ServerResponse,
  { limit, secret }: { limit: number; secret: string },
): Promise<void> {
  const hostProblem = hostHeaderProblem(req.headers.host, isLoopbackName);
  if (hostProblem) return sendJson(res, hostProblem.status, { message: hostProblem.message });
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const raw = url.pathname.split('/').filter(Boolean);
  // Before anything else, the body included: a caller without the secret gets nothing read or done.
  if (!sameSecret(raw[0] ?? '', secret)) {
    req.resume();
    return sendJson(res, 401, { message: 'The durable client API needs the base URL the host handed out.' });
  }
  const parts = raw.slice(1).map(decodeSegment);
  if (parts.includes(undefined))
    return sendJson(res, 400, { message: 'The URL path is not valid percent-encoding.' });
  const body = await readBody(req, limit);
  const method = req.method ?? 'GET';
  if (parts[0] !== 'durabletask') return sendJson(res, 404, { message: 'Not found.' });
  const [, area, a, b, c] = parts as string[];

  if (area === 'orchestrators' && method === 'POST' && a) {
    try {
      const version = url.searchParams.get('version') ?? undefined;
      const id = client.startNew(a, { instanceId: b, input: parseJson(body), version });
      return sendJson(res, 202, { id });
    } catch (e) {
      if (e instanceof InstanceExistsError) return sendJson(res, 409, { message: e.message });
      if (e instanceof InvalidInstanceIdError || e instanceof UnknownFunctionError) {
        return sendJson(res, 400, { message: e.message });
      }
      throw e;
    }
  }
  if (area === 'instances') {
    if (!a) {
      if (method === 'GET') return sendJson(res, 200, client.list(filterOf(url)));
      if (method === 'DELETE') return sendJson(res, 200, { instancesDeleted: client.purgeBy(filterOf(url)) });
    } else if (!b && method === 'GET') {
      const flag = (name: string) => url.searchParams.get(name) === 'true';
      const status = client.getStatus(a, {
        showHistory: flag('showHistory'),
        showHistoryOutput: flag('showHistoryOutput'),
        showInput: url.searchParams.get('showInput') !== 'false',
      });
      if (!status) return sendJson(res, 404, { message: `No instance with ID '${a}' found.` });
      const running = ['Pending', 'Running', 'ContinuedAsNew'].includes(status.runtimeStatus);
      return sendJson(res, running ? 202 : 200, status);
    } else if (!b && method === 'DELETE') {
      const deleted = client.purge(a);
      return deleted ? sendJson(res, 200, { instancesDeleted: deleted }) : sendJson(res, 404);
    } else if (b === 'raiseEvent' && c && method === 'POST') {
      const outcome = client.raiseEvent(a, c, parseJson(body));
      return sendJson(res, outcome === 'accepted' ? 202 : outcome === 'gone' ? 410 : 404);
    } else if (b === 'terminate' && method === 'POST') {
      const outcome = client.terminate(a, url.searchParams.get('reason'));
      return sendJson(res, outcome === 'accepted' ? 202 : outcome === 'gone' ? 410 : 404);
    } else if (b && ['suspend', 'resume', 'rewind', 'restart'].includes(b)) {
      return sendJson(res, 501, { message: `The embedded host does not support ${b}.` });
    }
  }
  if (area === 'entities' && a && b) {
    if (method === 'POST') {
      client.signalEntity(a, b, url.searchParams.get('op') ?? '', body.length ? body.toString('utf8') : null);
      return sendJson(res, 202);
    }
    if (method === 'GET') {
      const entity = client.readEntityState(a, b);
      return entity.exists ? sendJson(res, 200, entity.state) : sendJson(res, 404);
    }
  }
  sendJson(res, 404, { message: `No route for ${method} ${url.pathname}.` });
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

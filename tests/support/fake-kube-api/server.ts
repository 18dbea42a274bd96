/**
 * A PROTOCOL-LEVEL FAKE of kube-apiserver: no Kubernetes API server can run on this machine, so
 * tests talk real Kubernetes REST over HTTP on loopback to this instead. It serves the paths, verbs,
 * status codes and `Status` bodies of the real server for the resource types it is given (GET/PUT/
 * PATCH/DELETE of an object and its `/status`, POST to a collection), with resourceVersion
 * optimistic concurrency, uid preconditions and bearer-token auth. It does not validate schemas,
 * run admission or enforce RBAC.
 *
 * It also serves LIST (`limit`/`continue`) and chunked WATCH streams (ADDED/MODIFIED/DELETED,
 * BOOKMARK, ERROR with a 410 Expired Status) from the store's ordered change log; `watchList: false`
 * makes it refuse `sendInitialEvents` as a server without the WatchList feature does. Tests drive
 * what a real server does on its own schedule: `bookmark()`, `compact()` (then watches expire) and
 * `endWatches()` (a watch's server-side timeout).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { parseExactJson, stringifyExactJson } from '../../../shared/json/exact-json';
import { type OpenWatch, openWatch, refuseWatch, serveList } from './collection-reads';
import { handleItem, type Reply } from './item-handlers';
import { type KubeObject, ObjectStore, type ResourceType } from './object-store';
import { type ResolvedPath, resolvePath } from './routes';
import { statusObjects } from './status-objects';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string's parameters (a list's `limit`, a watch's `resourceVersion`). */
  query: Record<string, string>;
  contentType: string;
  authorization: string | undefined;
  body: unknown;
}

/**
 * What to do instead of (or before) serving a matching request: answer with a status and body,
 * drop the connection, never answer, or run something first (another writer acting between a client's read and
 * its write) and then serve normally.
 */
export type FaultAction =
  | { respond: { status: number; body: unknown } }
  | { dropConnection: true }
  /** Never answer (until the server closes): a stalled apiserver. */
  | { hang: true }
  | { runBefore: () => void };

export interface Fault {
  method?: string;
  /** Matches the request path exactly. */
  path?: string;
  /** How many matching requests it applies to. */
  times: number;
  action: FaultAction;
}

export interface FakeKubeApi {
  url: string;
  store: ObjectStore;
  requests: RecordedRequest[];
  /** Creates an object as `kubectl create` would and returns the stored copy (uid, resourceVersion). */
  create(type: ResourceType, object: KubeObject): KubeObject;
  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined;
  delete(type: ResourceType, namespace: string | undefined, name: string): void;
  injectFault(fault: Fault): void;
  /** Sends a BOOKMARK at the current revision on every open watch that allowed bookmarks. */
  bookmark(): void;
  /** Compacts the history: open watches get ERROR 410, and later watches from older revisions too. */
  compact(): void;
  /** Ends every open watch stream cleanly, as the server's watch timeout does. */
  endWatches(): void;
  /** How many watch streams are open now. */
  openWatches(): number;
  close(): Promise<void>;
}

/**
 * Starts the fake on a random loopback port, over HTTPS when given a certificate (as a real API
 * server), else plain HTTP. Requests must carry `Bearer <bearerToken>`.
 */
export async function startFakeKubeApi({
  types,
  bearerToken,
  tls,
  watchList = true,
}: {
  types: readonly ResourceType[];
  bearerToken: string;
  tls?: { key: string; cert: string };
  /** Whether `sendInitialEvents` (streaming list, KEP-3157) is served; default true. */
  watchList?: boolean;
}): Promise<FakeKubeApi> {
  const store = new ObjectStore();
  const watches = new Set<OpenWatch>();
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();

  const takeFault = (method: string, path: string): FaultAction | undefined => {
    const fault = faults.find(
      (f) => f.times > 0 && (f.method ?? method) === method && (f.path ?? path) === path,
    );
    if (fault === undefined) return undefined;
    fault.times -= 1;
    return fault.action;
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    readBody(req)
      .then((raw) => serve(req, res, raw))
      .catch((error: unknown) =>
        send(res, { status: 500, body: statusObjects.internalError(String(error)) }),
      );
  };
  const server = tls === undefined ? createHttpServer(handle) : createHttpsServer(tls, handle);

  const serve = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    let body: unknown;
    try {
      body = raw === '' ? undefined : parseExactJson(raw);
    } catch {
      send(res, { status: 400, body: statusObjects.badRequest('the body is not JSON') });
      return;
    }
    requests.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      contentType,
      authorization: req.headers.authorization,
      body,
    });
    if (req.headers.authorization !== `Bearer ${bearerToken}`) {
      send(res, { status: 401, body: statusObjects.unauthorized() });
      return;
    }
    const fault = takeFault(method, url.pathname);
    if (fault !== undefined && 'dropConnection' in fault) {
      req.socket.destroy();
      return;
    }
    if (fault !== undefined && 'hang' in fault) return;
    if (fault !== undefined && 'respond' in fault) {
      sendJson(res, fault.respond.status, fault.respond.body);
      return;
    }
    if (fault !== undefined) fault.runBefore();
    const resolved = resolvePath(url.pathname, types);
    if (resolved === undefined) {
      sendJson(res, 404, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'NotFound',
        code: 404,
      });
      return;
    }
    if (resolved.scope === 'collection' && method === 'GET') {
      serveRead({ type: resolved.type, namespace: resolved.namespace, query: url.searchParams }, res);
      return;
    }
    send(res, route(resolved, method, contentType, body));
  };

  const serveRead = (read: Parameters<typeof serveList>[1], res: ServerResponse): void => {
    const watching = read.query.get('watch') === 'true' || read.query.get('watch') === '1';
    if (!watching) {
      const list = serveList(store, read);
      sendJson(res, list.status, list.body);
      return;
    }
    const refusal = refuseWatch(read, watchList);
    if (refusal !== undefined) {
      sendJson(res, refusal.status, refusal.body);
      return;
    }
    const watch = openWatch(store, read, res);
    watches.add(watch);
    res.on('close', () => watches.delete(watch));
  };

  const route = (resolved: ResolvedPath, method: string, contentType: string, body: unknown): Reply => {
    if (resolved.scope === 'item') {
      return handleItem(store, { ...resolved, method, contentType, body });
    }
    return serveCollection(resolved, method, body);
  };

  const serveCollection = (
    resolved: Extract<ResolvedPath, { scope: 'collection' }>,
    method: string,
    body: unknown,
  ): Reply => {
    if (method !== 'POST' || resolved.namespace === undefined) {
      return { status: 405, body: statusObjects.methodNotAllowed(method) };
    }
    const object = body as KubeObject;
    const name = object?.metadata?.name;
    if (typeof name !== 'string')
      return { status: 400, body: statusObjects.badRequest('metadata.name is required') };
    const key = ObjectStore.key(resolved.type, resolved.namespace, name);
    if (store.get(key) !== undefined) {
      return {
        status: 409,
        body: statusObjects.alreadyExists({ ...resolved.type, name }),
      };
    }
    const created = store.create(key, {
      ...object,
      metadata: { ...object.metadata, namespace: resolved.namespace },
    });
    return { status: 201, body: created };
  };

  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    store,
    requests,
    create: (type, object) => {
      const namespace = type.namespaced ? object.metadata.namespace : undefined;
      return store.create(ObjectStore.key(type, namespace, object.metadata.name), object);
    },
    get: (type, namespace, name) => store.get(ObjectStore.key(type, namespace, name)),
    delete: (type, namespace, name) => {
      store.delete(ObjectStore.key(type, namespace, name));
    },
    injectFault: (fault) => {
      faults.push({ ...fault });
    },
    bookmark: () => {
      for (const watch of watches) watch.bookmark();
    },
    compact: () => {
      store.compact();
      for (const watch of [...watches]) watch.expire();
    },
    endWatches: () => {
      for (const watch of [...watches]) watch.end();
    },
    openWatches: () => watches.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, reply: Reply): void {
  sendJson(res, reply.status, reply.body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  // int64 fields digit for digit, as the apiserver's Go encoder writes them.
  const text = stringifyExactJson(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

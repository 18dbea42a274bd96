import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { z } from 'zod';
import { parseExactJson } from '../json/exact-json';
import { KubeReadFailed } from './errors';
import type { WatchScope } from './scopes';

/**
 * How to reach the Kubernetes API: its URL, and the TLS and auth options for each request (a
 * function, so that a rotated service-account token is read again).
 */
export interface KubeConnection {
  server: string;
  requestOptions(): Promise<RequestOptions>;
}

/** One watch event as the stream carries it. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject;
}

const kubeObjectSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  code: z.number().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  metadata: z
    .looseObject({
      name: z.string().optional(),
      namespace: z.string().optional(),
      resourceVersion: z.string().optional(),
      annotations: z.record(z.string(), z.string()).optional(),
      managedFields: z
        .array(z.looseObject({ manager: z.string().optional(), time: z.string().optional() }))
        .optional(),
    })
    .optional(),
});
export type KubeObject = z.output<typeof kubeObjectSchema>;

const watchEventSchema = z.strictObject({
  type: z.enum(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']),
  object: kubeObjectSchema,
});

const listSchema = z.looseObject({
  metadata: z.looseObject({
    resourceVersion: z.string(),
    continue: z.string().optional(),
    remainingItemCount: z.number().optional(),
  }),
  items: z.array(kubeObjectSchema),
});

/** A line of a watch stream may be one whole object; a larger one means the stream is broken. */
const MAX_WATCH_LINE_BYTES = 32 * 1024 * 1024;
const MAX_LIST_BYTES = 256 * 1024 * 1024;
/** The server ends a watch after this long (with jitter, like client-go's), and we reconnect from the cursor. */
const WATCH_TIMEOUT_SECONDS = 300;

/** The API path of a scope's collection: `/api/v1/...` for the core group, else `/apis/{group}/{version}/...`. */
export function collectionPath(scope: WatchScope): string {
  const base = scope.group === '' ? `/api/${scope.version}` : `/apis/${scope.group}/${scope.version}`;
  return scope.namespace === undefined
    ? `${base}/${scope.resource}`
    : `${base}/namespaces/${scope.namespace}/${scope.resource}`;
}

async function get(
  connection: KubeConnection,
  path: string,
  query: Record<string, string>,
  signal: AbortSignal,
  socketTimeoutMs: number,
): Promise<IncomingMessage> {
  const url = new URL(path, connection.server);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const options = await connection.requestOptions();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      ...options,
      method: 'GET',
      headers: { ...options.headers, accept: 'application/json' },
      signal,
    });
    req.setTimeout(socketTimeoutMs, () =>
      req.destroy(new Error(`no answer from the Kubernetes API in ${socketTimeoutMs} ms`)),
    );
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readAll(res: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > limit) {
      res.destroy();
      throw new Error(`the Kubernetes API answer is over ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function failure(res: IncomingMessage, path: string): Promise<KubeReadFailed> {
  const text = await readAll(res, 1024 * 1024).catch(() => '');
  let status: { reason?: string; message?: string } = {};
  try {
    status = JSON.parse(text) as typeof status;
  } catch {}
  const code = res.statusCode ?? 0;
  return new KubeReadFailed(
    `the Kubernetes API answered ${code} for ${path}: ${String(status.message ?? '').slice(0, 512)}`,
    {
      status: code,
      reason: String(status.reason ?? ''),
      path,
    },
  );
}

/** One page of a LIST: its items, the collection resourceVersion and how many items remain. */
export interface ListPage {
  items: KubeObject[];
  resourceVersion: string;
  remainingItemCount: number | undefined;
}

/** Lists a scope's collection in pages of `pageSize` (`limit`/`continue`). */
export async function* listPages(
  connection: KubeConnection,
  scope: WatchScope,
  pageSize: number,
  signal: AbortSignal,
): AsyncGenerator<ListPage> {
  const path = collectionPath(scope);
  let token: string | undefined;
  do {
    const res = await get(
      connection,
      path,
      { limit: String(pageSize), ...(token ? { continue: token } : {}) },
      signal,
      120_000,
    );
    if (res.statusCode !== 200) throw await failure(res, path);
    // Exact: an int64 in an object reaches kubescribe digit for digit (JSON.parse would round it).
    const list = listSchema.parse(parseExactJson(await readAll(res, MAX_LIST_BYTES)));
    token = list.metadata.continue || undefined;
    yield {
      items: list.items,
      resourceVersion: list.metadata.resourceVersion,
      remainingItemCount: list.metadata.remainingItemCount,
    };
  } while (token !== undefined);
}

/**
 * Opens a WATCH of a scope's collection and yields its events one by one. Reading is pulled: while
 * the caller is busy (e.g. waiting out a 429), the socket is not read and TCP holds the server back.
 * A non-200 answer throws `KubeReadFailed` (a 410, or a refused `sendInitialEvents`).
 */
export async function* watchEvents(
  connection: KubeConnection,
  scope: WatchScope,
  query: Record<string, string>,
  signal: AbortSignal,
): AsyncGenerator<WatchEvent> {
  const path = collectionPath(scope);
  const res = await get(
    connection,
    path,
    { watch: 'true', allowWatchBookmarks: 'true', timeoutSeconds: String(WATCH_TIMEOUT_SECONDS), ...query },
    signal,
    (WATCH_TIMEOUT_SECONDS + 60) * 1000,
  );
  if (res.statusCode !== 200) throw await failure(res, path);
  let pending = '';
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      pending += chunk.toString('utf8');
      if (pending.length > MAX_WATCH_LINE_BYTES)
        throw new Error(`a watch event of ${path} is over ${MAX_WATCH_LINE_BYTES} bytes`);
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line !== '') yield watchEventSchema.parse(parseExactJson(line));
        newline = pending.indexOf('\n');
      }
    }
  } finally {
    res.destroy();
  }
}

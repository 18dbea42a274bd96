import nodeHttp, { type ClientRequest } from 'node:http';
import nodeHttps from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { proxyAuthorization, proxyFor } from './http-proxy';
import { openTunnel } from './open-tunnel';
import type { Clock } from './types';
import { GIT_USER_AGENT } from './user-agent';

/**
 * Connections kept open between calls to the same host: a branch publishes every window, each
 * publication one receive-pack POST, and a new connection costs a TCP handshake (and a TLS one,
 * two more round trips, on every real host) each time. A connection idle for IDLE_MS is closed
 * first, before the server's own keep-alive timeout (5 s for Apache's httpd and for Node's) could
 * close it under a request: a POST lost that way would be a push whose reply was lost.
 */
const IDLE_MS = 4_000;
const kept = {
  'http:': new nodeHttp.Agent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new nodeHttps.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

/**
 * An isomorphic-git http client whose every request is bound to `signal`: when it fires the request
 * and its response are destroyed (the socket closes, it never returns to the pool) and the pending
 * promise or body iterator rejects; a request answered and read whole leaves its connection for the next. The stock client has no timeout at all.
 * `headers` are sent with every request (preemptive auth: no 401 round trip), with a `git/` User-Agent.
 * Redirects are not followed here: `discover-refs.ts` follows them for the first request only.
 * A proxy named by the environment (`http-proxy.ts`) is used: an https request goes through its
 * CONNECT tunnel, an http one is sent to it whole.
 */
export function boundedHttp({
  signal,
  headers = {},
  env = process.env,
}: {
  signal: AbortSignal;
  headers?: Record<string, string>;
  env?: Record<string, string | undefined>;
}): HttpClient {
  async function request(req: GitHttpRequest): Promise<GitHttpResponse> {
    signal.throwIfAborted();
    const declared = req.headers?.['content-length'];
    // a body of declared length goes out as it comes (a push's pack, while it is framed), and so does
    // a chunked one, its headers sent at once (a push opened before its pack is built); any other
    // is gathered first to declare its length, its chunks written as they are (no concatenated copy)
    const streamed = declared !== undefined || req.headers?.['transfer-encoding'] === 'chunked';
    const chunks: Uint8Array[] = [];
    if (req.body && !streamed) for await (const chunk of req.body) chunks.push(chunk);
    const url = new URL(req.url);
    const sent: Record<string, string> = { 'user-agent': GIT_USER_AGENT, ...req.headers, ...headers };
    if (req.body && !streamed)
      sent['content-length'] = String(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
    const proxy = proxyFor(url, env);
    const tunnel =
      proxy && url.protocol === 'https:' ? await openTunnel({ proxy, target: url, signal }) : undefined;
    return new Promise((resolve, reject) => {
      const method = req.method ?? 'GET';
      const outgoing = tunnel
        ? nodeHttps.request(url, { method, headers: sent, signal, createConnection: () => tunnel })
        : proxy
          ? // plain http through a proxy: the absolute URL as the request target
            (proxy.protocol === 'https:' ? nodeHttps : nodeHttp).request(proxy, {
              method,
              path: url.href,
              headers: { ...sent, host: url.host, ...proxyAuthorization(proxy) },
              signal,
              agent: false,
            })
          : (url.protocol === 'https:' ? nodeHttps : nodeHttp).request(url, {
              method,
              headers: sent,
              signal,
              agent: url.protocol === 'https:' ? kept['https:'] : kept['http:'],
            });
      outgoing.on('error', reject);
      outgoing.on('response', (res) => {
        const onAbort = () => res.destroy(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        res.on('close', () => signal.removeEventListener('abort', onAbort));
        const flat: Record<string, string> = {};
        for (const [key, value] of Object.entries(res.headers)) {
          if (value !== undefined) flat[key] = Array.isArray(value) ? value.join(', ') : value;
        }
        // Iterate the stream itself (no 'data' listener: that switches to flowing mode and drops chunks);
        // the iterator rejects when the response is destroyed.
        async function* body(): AsyncIterableIterator<Uint8Array> {
          for await (const chunk of res) yield chunk as Uint8Array;
        }
        resolve({
          url: req.url,
          method: req.method ?? 'GET',
          statusCode: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          headers: flat,
          body: body(),
        });
      });
      if (req.body && streamed) {
        // node sends a request's headers with its first bytes: these go now, the server starts on them
        if (declared === undefined) outgoing.flushHeaders();
        writeStreamed(outgoing, req.body, declared === undefined ? undefined : Number(declared)).catch(
          (error: unknown) => outgoing.destroy(error as Error),
        );
        return;
      }
      for (const chunk of chunks) outgoing.write(chunk);
      outgoing.end();
    });
  }
  return { request };
}

/**
 * Writes a body as its chunks come, waiting while the connection's buffer is full; stops when the
 * request is gone (refused before reading it all, aborted). A body that does not come to its
 * declared `length` fails the request rather than send what the server would read as another
 * length, and so does a body that fails (a chunked one cut short is no request either).
 */
async function writeStreamed(
  outgoing: ClientRequest,
  body: AsyncIterable<Uint8Array>,
  length: number | undefined,
): Promise<void> {
  let written = 0;
  for await (const chunk of body) {
    if (outgoing.destroyed) return;
    written += chunk.byteLength;
    if (length !== undefined && written > length) break;
    if (!outgoing.write(chunk)) await drainedOrClosed(outgoing);
  }
  if (outgoing.destroyed) return;
  if (length !== undefined && written !== length)
    throw new Error(`a request body of ${written} bytes where ${length} were declared`);
  outgoing.end();
}

const drainedOrClosed = (outgoing: ClientRequest) =>
  new Promise<void>((resolve) => {
    const done = () => {
      outgoing.off('drain', done);
      outgoing.off('close', done);
      resolve();
    };
    outgoing.on('drain', done);
    outgoing.on('close', done);
  });

/**
 * Reads the rest of a response no one waits for (what a server sends after its report on a push)
 * so that its connection goes back to the pool; `stop`, which the request was bound to, closes it
 * if it has not ended within `ms`. Resolves once the rest is read or cut, never rejects.
 */
export function readTailWithin({
  rest,
  stop,
  clock,
  ms,
}: {
  rest: AsyncIterator<Uint8Array>;
  stop: AbortController;
  clock: Clock;
  ms: number;
}): Promise<void> {
  const timer = clock.setTimeout(
    () => stop.abort(new Error(`the rest of an answer did not end within ${ms} ms`)),
    ms,
  );
  const drain = async () => {
    while (!(await rest.next()).done);
  };
  return drain()
    .catch(() => {})
    .finally(() => clock.clearTimeout(timer));
}

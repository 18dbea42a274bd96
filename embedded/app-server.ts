/**
 * Serves the app's HTTP functions at `/api/<route>`: builds the worker's RPC HTTP data, invokes the
 * function through the programming model, and writes the response it converted. Bodies above the
 * limit get 413 before the function runs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostContext } from './host-context';
import { BodyTooLargeError, readBody, sendJson } from './http-body';
import { findRoute } from './http-routes';
import { invokeFunction } from './invoke';

interface RpcHttpResponse {
  statusCode?: string;
  headers?: Record<string, string>;
  cookies?: { name: string; value: string; path?: string; maxAge?: { value: number } }[];
  body?: { bytes?: Uint8Array; string?: string };
}

/** Starts the app server on `host:port` (port 0 picks a free one). */
export async function startAppServer(
  host: HostContext,
  functions: () => Iterable<import('./core-module').RegisteredFunction>,
  options: { host: string; port: number; bodyLimitBytes: number },
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    serve(host, functions, req, res, options.bodyLimitBytes).catch((e: unknown) => {
      if (e instanceof BodyTooLargeError)
        return sendJson(res, 413, { error: 'payload-too-large', message: e.message });
      host.log('error', 'HttpFunctionFailed', {
        url: req.url,
        error: e instanceof Error ? e.message : String(e),
      });
      if (!res.headersSent) sendJson(res, 500, { error: 'internal-error', message: 'The function failed.' });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { server, url: `http://${shownHost}:${port}` };
}

async function serve(
  host: HostContext,
  functions: () => Iterable<import('./core-module').RegisteredFunction>,
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
  const path = url.pathname;
  if (!path.toLowerCase().startsWith('/api/') && path.toLowerCase() !== '/api') {
    return sendJson(res, 404, { error: 'not-found', message: `No function serves ${path}.` });
  }
  const route = findRoute(functions(), req.method ?? 'GET', path.slice(4));
  if (!route)
    return sendJson(res, 404, { error: 'not-found', message: `No function serves ${req.method} ${path}.` });
  const body = await readBody(req, limit);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const http = {
    method: req.method,
    url: url.href,
    headers,
    query: Object.fromEntries(url.searchParams),
    params: route.params,
    body: body.length ? { bytes: new Uint8Array(body) } : undefined,
  };
  const out = await invokeFunction({
    fn: route.fn,
    inputs: [{ name: route.fn.triggerName, data: { http } }, ...host.clientInputs(route.fn)],
    log: host.functionLog,
  });
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

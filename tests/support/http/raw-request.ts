// HTTP/1.1 requests that fetch cannot make: any Host header, a path sent as is, a declared body
// length that is not (yet) sent.
import { type ClientRequest, request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert their shape with matchers.
  body: any;
}

/**
 * Sends a request to `origin` (http://host:port) with `path` unencoded. With `declare`, the body
 * is `body` (default empty) under a Content-Length of `declare` bytes and the request is left
 * open: `req` can finish it.
 */
export function rawRequest(
  origin: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    declare?: number;
  },
): { answer: Promise<RawAnswer>; req: ClientRequest } {
  const { hostname, port } = new URL(origin);
  let req!: ClientRequest;
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req = request(
      {
        hostname,
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: {
          ...(options.declare === undefined ? {} : { 'content-length': String(options.declare) }),
          ...options.headers,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
  });
  if (options.declare === undefined) req.end(options.body);
  else if (options.body) req.write(options.body);
  return { answer, req };
}

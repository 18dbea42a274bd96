import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call an emulator received, as a test looks at it afterwards. */
export type RestCall = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: unknown;
};

/** What a handler answers: a status and a JSON body (or raw text, for a host's HTML page). */
export type RestAnswer = { status: number; json?: unknown; text?: string; headers?: Record<string, string> };

/** The faults every emulator can be told to answer its next call with. */
export type Fault = RestAnswer | { stall: true };

export type RestServer = {
  url: string;
  /** Every call received, oldest first. */
  readonly calls: readonly RestCall[];
  /** The next call is answered with `fault` instead (a stall never answers until `stop`). */
  failNext(fault: Fault): void;
  stop(): Promise<void>;
};

/**
 * A loopback HTTP server answering JSON, the part the host emulators share: it reads each request's
 * JSON body, records the call, answers queued faults first, and otherwise asks `handle`.
 */
export async function serveRest(handle: (call: RestCall) => RestAnswer): Promise<RestServer> {
  const calls: RestCall[] = [];
  const faults: Fault[] = [];
  const stalled = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://emulator');
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const call: RestCall = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      calls.push(call);
      const fault = faults.shift();
      if (fault && 'stall' in fault) return void stalled.add(res);
      const answer = fault ?? handle(call);
      const payload = answer.text ?? (answer.json === undefined ? '' : JSON.stringify(answer.json));
      res.writeHead(answer.status, {
        'content-type':
          answer.text === undefined ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8',
        ...answer.headers,
      });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    failNext: (fault) => void faults.push(fault),
    async stop() {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

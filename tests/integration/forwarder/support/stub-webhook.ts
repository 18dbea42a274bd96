import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the stub received, and the status it answered. */
export interface StubRequest {
  path: string;
  authorization: string | undefined;
  body: unknown;
  status: number;
}

/**
 * A stand-in for kubescribe's ingest routes on loopback, for behaviour the real app cannot be made
 * to show on demand (a 429 for exactly one post, a 400, a dropped connection). Answers 202 unless
 * told otherwise by `answerNext`.
 */
export async function startStubWebhook(): Promise<{
  url: string;
  requests: StubRequest[];
  /** The next matching requests get this answer (`drop` closes the connection unanswered). */
  answerNext(rule: {
    path: RegExp;
    times: number;
    status: number | 'drop';
    headers?: Record<string, string>;
  }): void;
  close(): Promise<void>;
}> {
  const requests: StubRequest[] = [];
  const rules: { path: RegExp; times: number; status: number | 'drop'; headers?: Record<string, string> }[] =
    [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const rule = rules.find((r) => r.times > 0 && r.path.test(path));
      if (rule) rule.times -= 1;
      const status = rule?.status ?? 202;
      requests.push({
        path,
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        status: status === 'drop' ? 0 : status,
      });
      if (status === 'drop') {
        req.socket.destroy();
        return;
      }
      const text = JSON.stringify(
        status < 300 ? { accepted: 1 } : { error: 'stub', message: `stub answered ${status}` },
      );
      res.writeHead(status, { 'content-type': 'application/json', ...rule?.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    answerNext: (rule) => rules.push({ ...rule }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

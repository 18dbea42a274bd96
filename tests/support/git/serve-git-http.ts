import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type GitServerAuth = { basic?: [string, string]; bearer?: string };

/**
 * An http server in front of the real `git http-backend` CGI (one child per request), serving the
 * bare repositories under `root`, with pushes enabled and the repositories' hooks run.
 * In-process: never call a synchronous `git` against it from the same process (it deadlocks);
 * `startGitServer` runs it in its own process.
 */
export function serveGitHttp({
  root,
  auth,
  port = 0,
}: {
  root: string;
  auth?: GitServerAuth;
  port?: number;
}): Promise<{ url: string; stop(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (auth) {
      const given = req.headers.authorization ?? '';
      const basic = auth.basic && given === `Basic ${Buffer.from(auth.basic.join(':')).toString('base64')}`;
      const bearer = auth.bearer && given === `Bearer ${auth.bearer}`;
      if (!basic && !bearer) {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
        res.end('authentication required\n');
        return;
      }
    }
    const url = new URL(req.url ?? '/', 'http://local');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method,
      QUERY_STRING: url.search.slice(1),
      PATH_INFO: decodeURIComponent(url.pathname),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_USER: 'kubescribe-test',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      GIT_HTTP_MAX_REQUEST_BUFFER: '1000M',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
    };
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
    const protocol = req.headers['git-protocol'];
    if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;
    const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    req.pipe(cgi.stdin);
    cgi.stdin.on('error', () => {});
    let head = Buffer.alloc(0);
    let headersSent = false;
    let stderr = '';
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      let end = head.indexOf('\r\n\r\n');
      let gap = 4;
      if (end < 0) {
        end = head.indexOf('\n\n');
        gap = 2;
      }
      if (end < 0) return;
      headersSent = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const match = /^([^:]+):\s*(.*)$/.exec(line);
        if (!match) continue;
        if (match[1]!.toLowerCase() === 'status') status = Number.parseInt(match[2]!, 10);
        else res.setHeader(match[1]!, match[2]!);
      }
      res.writeHead(status);
      const rest = head.subarray(end + gap);
      if (rest.length) res.write(rest);
    });
    cgi.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    cgi.on('close', () => {
      if (!headersSent) {
        res.writeHead(500);
        res.end(stderr);
        return;
      }
      res.end();
    });
    res.on('close', () => {
      if (cgi.exitCode === null) cgi.kill('SIGTERM');
    });
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        stop: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

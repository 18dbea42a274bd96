import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedHttp } from '../../../shared/git/bounded-http';
import { encodePack } from '../../../shared/git/encode-pack';
import { createObjectStore } from '../../../shared/git/object-store';

// A push declares its pack's length (its Content-Length: git http-backend reads CONTENT_LENGTH
// bytes, RFC 9112 section 6.2) and sends the pieces as they are framed, so the server reads and
// indexes the first objects while the last are still being framed. A loopback HTTP server stands
// in for the Git host here: what is held is when the bytes arrive, not what they mean.

let server: Server;
let url: string;
const arrived: { bytes: number; whole: boolean; listeners: (() => void)[] } = {
  bytes: 0,
  whole: false,
  listeners: [],
};

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    arrived.bytes = 0;
    arrived.whole = false;
    req.on('data', (chunk: Buffer) => {
      arrived.bytes += chunk.length;
      for (const listener of arrived.listeners.splice(0)) listener();
    });
    req.on('end', () => {
      arrived.whole = true;
      res.end(`${arrived.bytes}`);
    });
    req.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/r.git/git-receive-pack`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const serverHas = (bytes: number) =>
  new Promise<void>((resolve) => {
    const check = () => (arrived.bytes >= bytes ? resolve() : arrived.listeners.push(check));
    check();
  });

async function text(body: AsyncIterableIterator<Uint8Array>): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('a request body of declared length', () => {
  it('goes out as it comes: the server holds the first piece before the last is made', async () => {
    const first = Buffer.alloc(64 * 1024, 1);
    const last = Buffer.alloc(1000, 2);
    // the last piece is made only once the server has the first: gathered before sending, it never would be
    const body = (async function* () {
      yield first;
      await serverHas(first.length);
      yield last;
    })();
    const res = await boundedHttp({ signal: new AbortController().signal }).request({
      url,
      method: 'POST',
      headers: { 'content-length': String(first.length + last.length) },
      body,
    });

    expect(res.statusCode).toBe(200);
    expect(await text(res.body!)).toBe(String(first.length + last.length));
  });

  it('fails when the body comes short of its length, and the server never reads it whole', async () => {
    arrived.whole = false;
    const body = (async function* () {
      yield Buffer.from('0000');
    })();
    const request = boundedHttp({ signal: new AbortController().signal }).request({
      url,
      method: 'POST',
      headers: { 'content-length': '10' },
      body,
    });

    await expect(request).rejects.toThrow('a request body of 4 bytes where 10 were declared');
    expect(arrived.whole).toBe(false);
  });

  it("is the pack's own length when a push declares it", async () => {
    const store = createObjectStore();
    for (let i = 0; i < 200; i++) store.add('blob', Buffer.from(`object ${i}\n`.repeat(i + 1)));
    const { pack, packBytes } = await encodePack({ store });
    let framed = 0;
    for await (const piece of pack) framed += piece.length;

    expect(packBytes).toBe(framed);
  });
});

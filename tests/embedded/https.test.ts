// The app server serves HTTPS when given a certificate (what admission webhooks and the forwarder
// require of a host they call), and only HTTPS then.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';
import { writeLoopbackCertificate } from '../support/tls/loopback-certificate';

const APP = require.resolve('../support/embedded/sample-app');
let t: TestHost;
let dir: string;
let tls: { cert: string; key: string };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubescribe-tls-'));
  tls = writeLoopbackCertificate(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await t.stop();
});

function get(url: string, ca?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, ca ? { ca } : {}, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

it('given a certificate, serves the app over HTTPS at an https:// URL', async () => {
  t = await startTestHost(APP, { tls });
  expect(t.host.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const answer = await get(`${t.host.url}/api/items/special`, tls.cert);
  expect(answer.status).toBe(200);
});

it('given a certificate, refuses a client that does not trust it, and does not speak plain HTTP', async () => {
  t = await startTestHost(APP, { tls });
  await expect(get(`${t.host.url}/api/items/special`)).rejects.toThrow(/self-signed|self signed/);
  const plain = t.host.url.replace(/^https:/, 'http:');
  await expect(get(`${plain}/api/items/special`)).rejects.toThrow(/socket hang up/);
});

it('without a certificate, serves plain HTTP as before', async () => {
  t = await startTestHost(APP);
  expect(t.host.url).toMatch(/^http:\/\//);
  expect((await get(`${t.host.url}/api/items/special`)).status).toBe(200);
});

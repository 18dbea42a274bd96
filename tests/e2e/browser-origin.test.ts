// With auth disabled (the `npm start` default, loopback only), a page from another origin that a
// browser on the machine opens must not write: a cross-origin form POST needs no CORS preflight
// (Fetch standard, "CORS-safelisted request"), and browsers send `Origin` with it and mark it
// `Sec-Fetch-Site: cross-site` (Fetch Metadata). Clients that are not browsers send neither.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type AppHost, appOnNewRepository } from '../support/app/app-host';

const repo = appOnNewRepository();
let app: AppHost;
beforeAll(() => {
  app = repo.app;
});

async function suspended(): Promise<boolean> {
  await app.advance(1_000);
  return (await app.http('GET', '/api/v1/targets/prod')).body.suspension.suspended;
}

describe('without auth, a write', () => {
  it('from a form on another origin is refused 403, and nothing is suspended', async () => {
    const refused = await app.http('POST', '/api/v1/targets/prod/suspend', 'x=1', {
      'content-type': 'application/x-www-form-urlencoded',
      origin: 'http://attacker.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(refused).toMatchObject({
      status: 403,
      body: { error: 'forbidden', message: expect.stringContaining('another origin') },
    });
    expect(await suspended()).toBe(false);
  });

  it('marked cross-site without an Origin, or from an opaque origin, is refused', async () => {
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'null' }] as Record<
      string,
      string
    >[]) {
      expect((await app.http('POST', '/api/v1/targets/prod/suspend', undefined, headers)).status).toBe(403);
    }
    expect(await suspended()).toBe(false);
  });

  it('from the server’s own pages (the dashboard) is taken', async () => {
    const origin = new URL(app.host.url).origin;
    const taken = await app.http('POST', '/api/v1/targets/prod/suspend', undefined, {
      origin,
      'sec-fetch-site': 'same-origin',
    });
    expect(taken.status).toBe(202);
    expect(await suspended()).toBe(true);
  });

  it('from a client that is not a browser (curl: no Origin) is taken, body-less as docs/api.md shows', async () => {
    expect((await app.http('POST', '/api/v1/targets/prod/resume')).status).toBe(202);
    expect(await suspended()).toBe(false);
  });
});

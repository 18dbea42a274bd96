/**
 * Pull-request calls leave through the proxy the environment names, as the repository's pushes do
 * (tests/integration/git/proxy.test.ts): Node's own fetch would ignore `HTTP_PROXY`.
 */
import { fixedCredentials } from '../../../shared/git/credentials';
import { openForge } from '../../../shared/git/forges/forge';
import { startGitHubEmulator } from '../../support/forges/github-emulator';
import { type ConnectProxy, startConnectProxy } from '../../support/git/start-connect-proxy';

const VARIABLES = ['http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY'] as const;

describe('a forge behind a proxy', () => {
  let proxy: ConnectProxy;
  const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
  beforeEach(async () => {
    proxy = await startConnectProxy({ credentials: 'kubescribe:proxy-secret' });
    for (const name of VARIABLES) delete process.env[name];
  });
  afterEach(async () => {
    for (const name of VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    await proxy.stop();
  });

  it('sends its calls through HTTP_PROXY, with the proxy’s credentials', async () => {
    const github = await startGitHubEmulator({ token: 't' });
    process.env.HTTP_PROXY = proxy.url.replace('http://', 'http://kubescribe:proxy-secret@');
    try {
      const forge = openForge({
        repositoryUrl: 'https://github.com/acme/fleet',
        forge: { kind: 'github', apiUrl: github.url },
        credentials: fixedCredentials({ bearer: 't' }),
      });
      const opened = await forge.open('kubescribe/prod', 'main', { title: 't', description: 'd' });

      expect(opened.state).toBe('open');
      expect(proxy.requests).toEqual([
        expect.objectContaining({ method: 'POST', target: `${github.url}/repos/acme/fleet/pulls` }),
      ]);
      expect(github.calls).toHaveLength(1);
    } finally {
      await github.stop();
    }
  });

  it('goes direct to a host NO_PROXY names', async () => {
    const github = await startGitHubEmulator({ token: 't' });
    process.env.HTTP_PROXY = proxy.url;
    process.env.NO_PROXY = '127.0.0.1';
    try {
      const forge = openForge({
        repositoryUrl: 'https://github.com/acme/fleet',
        forge: { kind: 'github', apiUrl: github.url },
        credentials: fixedCredentials({ bearer: 't' }),
      });
      expect(await forge.findOpen('kubescribe/prod', 'main')).toBeUndefined();
      expect(proxy.requests).toEqual([]);
    } finally {
      await github.stop();
    }
  });
});

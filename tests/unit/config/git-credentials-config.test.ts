import { generateKeyPairSync } from 'node:crypto';
import { ConfigInvalid, ConfigSecretMissing, type LoadedConfig, loadConfig } from '../../../shared/config';

const url = 'https://dev.azure.com/acme/fleet/_git/state';
const targets = [{ name: 'prod', repository: 'platform', branch: 'main' }];
const pem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

function loadAuth(auth: unknown, env: Record<string, string> = {}): Promise<LoadedConfig> {
  const content = JSON.stringify({ repositories: [{ name: 'platform', url, auth }], targets });
  return loadConfig({
    env: { ...env, KUBESCRIBE_CONFIG_CONTENT: content },
    readFile: () => Promise.reject(new Error('no file')),
    cwd: '/srv',
  });
}
const issuesOf = async (auth: unknown, env?: Record<string, string>) => {
  const error = await loadAuth(auth, env).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConfigInvalid);
  return (error as ConfigInvalid).data.issues;
};

describe('a repository’s Git credentials in the configuration', () => {
  it('given a token variable with no kind then it is the static kind, as before', async () => {
    const loaded = await loadAuth({ username: 'pat', tokenEnv: 'GIT_TOKEN' }, { GIT_TOKEN: 'value' });
    expect(loaded.config.repositories[0]!.auth).toEqual({
      kind: 'static',
      username: 'pat',
      tokenEnv: 'GIT_TOKEN',
    });
    expect(loaded.secrets.repositoryTokens.platform?.reveal()).toBe('value');
  });

  it('given azure-identity then no secret is needed, and a client id is kept', async () => {
    const loaded = await loadAuth({
      kind: 'azure-identity',
      clientId: '6f1d1b5e-0000-4000-8000-00000000c11d',
    });
    expect(loaded.config.repositories[0]!.auth).toEqual({
      kind: 'azure-identity',
      clientId: '6f1d1b5e-0000-4000-8000-00000000c11d',
    });
    expect(loaded.secrets.repositoryTokens).toEqual({});
  });

  it('given github-app then the ids are read as text, the API defaults to github.com, and the key is held as a secret', async () => {
    const loaded = await loadAuth(
      { kind: 'github-app', appId: 4242, installationId: '777', privateKeyEnv: 'GH_APP_KEY' },
      { GH_APP_KEY: pem },
    );
    expect(loaded.config.repositories[0]!.auth).toEqual({
      kind: 'github-app',
      appId: '4242',
      installationId: '777',
      privateKeyEnv: 'GH_APP_KEY',
      apiUrl: 'https://api.github.com',
    });
    expect(String(loaded.secrets.repositoryAppKeys?.platform)).toBe('[redacted]');
    expect(loaded.secrets.repositoryAppKeys?.platform?.reveal()).toBe(pem);
  });

  it('given github-app without its fields then each missing field is named', async () => {
    expect(await issuesOf({ kind: 'github-app', appId: '1' })).toEqual([
      { path: 'repositories[0].auth.installationId', message: 'is required with kind github-app' },
      { path: 'repositories[0].auth.privateKeyEnv', message: 'is required with kind github-app' },
    ]);
  });

  it('given a field of another kind then it is refused by name', async () => {
    expect(await issuesOf({ kind: 'azure-identity', tokenEnv: 'GIT_TOKEN' })).toEqual([
      { path: 'repositories[0].auth.tokenEnv', message: 'is not used with kind azure-identity' },
    ]);
    const exactlyOne = {
      path: 'repositories[0].auth.tokenEnv',
      message: 'name the token with exactly one of tokenEnv (a variable) or tokenFile (a file)',
    };
    expect(await issuesOf({ username: 'x' })).toEqual([exactlyOne]);
    expect(await issuesOf({ tokenEnv: 'GIT_TOKEN', tokenFile: '/var/run/git/token' })).toEqual([exactlyOne]);
  });

  it('given a token file then no variable is read and a relative path is the configuration folder’s', async () => {
    const loaded = await loadAuth({ username: 'pat', tokenFile: 'secrets/git-token' });
    expect(loaded.config.repositories[0]!.auth).toEqual({
      kind: 'static',
      username: 'pat',
      tokenFile: '/srv/secrets/git-token',
    });
    expect(loaded.secrets.repositoryTokens).toEqual({});
  });

  it('given an unknown kind, a client id that is no GUID or a plain-http API then each is refused', async () => {
    const kind = await issuesOf({ kind: 'ssh-key' });
    const clientId = await issuesOf({ kind: 'azure-identity', clientId: 'my-identity' });
    const api = await issuesOf({
      kind: 'github-app',
      appId: '1',
      installationId: '2',
      privateKeyEnv: 'K',
      apiUrl: 'http://ghe.example.com/api/v3',
    });
    expect([kind[0]?.path, clientId, api]).toEqual([
      'repositories[0].auth.kind',
      [{ path: 'repositories[0].auth.clientId', message: 'must be a client id (a GUID)' }],
      [{ path: 'repositories[0].auth.apiUrl', message: expect.stringContaining('https://') }],
    ]);
  });

  it('given github-app whose key variable is unset or holds no private key then it names the variable, never the value', async () => {
    const auth = { kind: 'github-app', appId: '1', installationId: '2', privateKeyEnv: 'GH_APP_KEY' };
    const missing = await loadAuth(auth).catch((thrown: unknown) => thrown);
    const garbled = await loadAuth(auth, { GH_APP_KEY: 'not-a-key-s3cret' }).catch(
      (thrown: unknown) => thrown,
    );
    expect(missing).toBeInstanceOf(ConfigSecretMissing);
    expect(missing).toMatchObject({
      data: { missing: [{ variable: 'GH_APP_KEY', usedBy: 'repositories[0].auth.privateKeyEnv' }] },
    });
    expect(garbled).toBeInstanceOf(ConfigInvalid);
    expect((garbled as ConfigInvalid).data.issues).toEqual([
      { path: 'repositories[0].auth.privateKeyEnv', message: expect.stringContaining('PEM private key') },
    ]);
    expect(JSON.stringify(garbled)).not.toContain('s3cret');
  });
});

import { ConfigInvalid, ConfigSecretMissing, type LoadedConfig, loadConfig } from '../../../shared/config';
import { newOpenPgpSigningKit, newSshSigningKit, type SigningKit } from '../../support/git/signing-keys';

const url = 'https://github.com/acme/state.git';
const targets = [{ name: 'prod', repository: 'platform', branch: 'main' }];

let ssh: SigningKit;
let pgp: SigningKit;
beforeAll(() => {
  ssh = newSshSigningKit('ed25519');
  pgp = newOpenPgpSigningKit('ed25519', { name: 'Fleet Recorder', email: 'fleet@example.com' });
});
afterAll(() => {
  ssh.cleanup();
  pgp.cleanup();
});

function load(
  repository: object,
  { env = {}, files = {} }: { env?: Record<string, string>; files?: Record<string, string> } = {},
): Promise<LoadedConfig> {
  const content = JSON.stringify({ repositories: [{ name: 'platform', url, ...repository }], targets });
  return loadConfig({
    env: { ...env, KUBESCRIBE_CONFIG_CONTENT: content },
    readFile: (path) =>
      path in files
        ? Promise.resolve(files[path]!)
        : Promise.reject(Object.assign(new Error(), { code: 'ENOENT' })),
    cwd: '/srv',
  });
}

async function issuesOf(...args: Parameters<typeof load>) {
  const error = await load(...args).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConfigInvalid);
  return (error as ConfigInvalid).data.issues;
}

describe('a repository’s signing key in the configuration', () => {
  it('given an SSH key in a variable then the repository has a signer that prints no key', async () => {
    const loaded = await load(
      { signing: { format: 'ssh', keyEnv: 'SIGNING_KEY' } },
      { env: { SIGNING_KEY: ssh.privateKey } },
    );
    expect(loaded.config.repositories[0]!.signing).toEqual({ format: 'ssh', keyEnv: 'SIGNING_KEY' });
    const shown = JSON.stringify(loaded.secrets);
    expect(shown).toContain('"platform":"[signing key]"');
    for (const fragment of ssh.secretFragments) expect(shown).not.toContain(fragment);
  });

  it('given an OpenPGP key in a file (relative to the working folder) whose user ID names the committer then it is used', async () => {
    const loaded = await load(
      {
        committer: { name: 'Fleet Recorder', email: 'Fleet@Example.com' },
        signing: { format: 'openpgp', keyFile: 'keys/signing.asc' },
      },
      { files: { '/srv/keys/signing.asc': pgp.privateKey } },
    );
    expect(loaded.config.repositories[0]!.signing?.keyFile).toBe('/srv/keys/signing.asc');
    expect(loaded.secrets.repositorySigners?.platform?.identities).toEqual(['fleet@example.com']);
  });

  it('given an OpenPGP key whose user IDs do not name the committer then the start stops at the committer’s email', async () => {
    const issues = await issuesOf(
      { signing: { format: 'openpgp', keyEnv: 'SIGNING_KEY' } },
      { env: { SIGNING_KEY: pgp.privateKey } },
    );
    expect(issues).toEqual([
      {
        path: 'repositories[0].committer.email',
        message: expect.stringMatching(
          /is not an identity of the signing key \(its user IDs name fleet@example.com\)/,
        ),
      },
    ]);
  });

  it('given both a variable and a file, or neither, then it says to name exactly one', async () => {
    for (const signing of [{ format: 'ssh' }, { format: 'ssh', keyEnv: 'K', keyFile: '/k' }]) {
      expect(await issuesOf({ signing })).toEqual([
        {
          path: 'repositories[0].signing',
          message: 'must name the key with exactly one of keyEnv and keyFile',
        },
      ]);
    }
  });

  it('given an unset variable then it is reported with the others missing', async () => {
    const error = await load({ signing: { format: 'ssh', keyEnv: 'SIGNING_KEY' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigSecretMissing);
    expect((error as ConfigSecretMissing).data.missing).toEqual([
      { variable: 'SIGNING_KEY', usedBy: 'repositories[0].signing.keyEnv' },
    ]);
  });

  it('given a file that cannot be read, or a key of the other format, then the field says so without the key', async () => {
    expect(await issuesOf({ signing: { format: 'ssh', keyFile: '/nowhere/key' } })).toEqual([
      { path: 'repositories[0].signing.keyFile', message: 'names a file that cannot be read (ENOENT)' },
    ]);
    const issues = await issuesOf(
      { signing: { format: 'openpgp', keyEnv: 'SIGNING_KEY' } },
      { env: { SIGNING_KEY: ssh.privateKey } },
    );
    expect(issues).toEqual([
      {
        path: 'repositories[0].signing.keyEnv',
        message:
          'holds a key that cannot sign openpgp commits: it is not an armored OpenPGP secret key (gpg --armor --export-secret-keys)',
      },
    ]);
  });
});

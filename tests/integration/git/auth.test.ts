import { publish } from '../../../shared/git/publish';
import { readBranchHead } from '../../../shared/git/read-branch-head';
import { aWrite } from '../../support/git/a-write';
import { type GitWorld, logOf, startGitWorld } from './git-fixture';

const TOKEN = 'ghp_s3cretT0kenValue';
let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld({ auth: { basic: ['x-access-token', TOKEN], bearer: TOKEN } });
});
afterAll(() => world.stop());

describe('a remote that requires a token', () => {
  it('publishes with a basic username and token', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const remote = { kind: 'http' as const, url, auth: { username: 'x-access-token', token: TOKEN } };

    const result = await publish({
      remote,
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    expect(await logOf(gitdir)).toHaveLength(2);
  });

  it('publishes with a bearer token, sending it up front (no 401 round trip)', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const seen = world.proxy.requests.length;

    const result = await publish({
      remote: { kind: 'http', url, auth: { bearer: TOKEN } },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    // advertise (2) + fetch (1) + push (1)
    expect(world.proxy.requests.length - seen).toBe(4);
  });

  it('reports a wrong token as authFailed without revealing it', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const wrong = 'ghp_wrongTokenValue42';

    const result = await publish({
      remote: { kind: 'http', url, auth: { username: 'x-access-token', token: wrong } },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: await world.cacheDir(),
    });
    const probe = await readBranchHead({
      remote: { kind: 'http', url, auth: { bearer: wrong } },
      branch: 'main',
    });

    expect(result).toMatchObject({ kind: 'authFailed' });
    expect(probe).toMatchObject({ kind: 'authFailed' });
    expect(JSON.stringify([result, probe])).not.toContain(wrong);
  });

  it('reports a missing token as authFailed', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });

    const result = await readBranchHead({ remote: { kind: 'http', url }, branch: 'main' });

    expect(result).toEqual({
      kind: 'authFailed',
      cause: 'the remote refused the credentials (HTTP 401): authentication required',
    });
  });
});

import { readBranchHead } from '../../../shared/git/read-branch-head';
import { runGit } from '../../support/git/run-git';
import { type GitWorld, startGitWorld } from './git-fixture';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterEach(() => world.proxy.reset());
afterAll(() => world.stop());

describe('reading a branch head', () => {
  it('finds the head of an existing branch, over http and from a local bare repository', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const head = await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main'] });

    expect(await readBranchHead({ remote: { kind: 'http', url }, branch: 'main' })).toEqual({
      kind: 'found',
      head,
      defaultBranch: 'main',
    });
    expect(await readBranchHead({ remote: { kind: 'local', path: gitdir }, branch: 'main' })).toEqual({
      kind: 'found',
      head,
      defaultBranch: 'main',
    });
  });

  it('says a branch is missing, and whether the repository is empty', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const empty = await world.repo();

    expect(await readBranchHead({ remote: { kind: 'http', url }, branch: 'parent' })).toEqual({
      kind: 'missing',
      defaultBranch: 'main',
      empty: false,
    });
    expect(await readBranchHead({ remote: { kind: 'local', path: empty.gitdir }, branch: 'main' })).toEqual({
      kind: 'missing',
      defaultBranch: 'main',
      empty: true,
    });
  });

  it('returns a timeout when the advertisement stalls', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    world.proxy.inject({ on: 'refs', fault: { kind: 'stall' } });

    expect(
      await readBranchHead({ remote: { kind: 'http', url }, branch: 'main', callTimeoutMs: 300 }),
    ).toEqual({ kind: 'timeout', step: 'advertise', afterMs: 300 });
  });

  it('reports an unknown repository as rejected', async () => {
    const result = await readBranchHead({
      remote: { kind: 'http', url: `${world.proxy.url}/nope.git` },
      branch: 'main',
    });

    expect(result).toMatchObject({ kind: 'rejected', cause: expect.stringContaining('404') });
  });
});

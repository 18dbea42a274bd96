import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareLocalRepositories } from '../../../../shared/app/runtime/local-repository';
import { ConfigInvalid, loadConfig } from '../../../../shared/config';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'ks-local-repo-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

async function prepare(repositories: object[]): Promise<unknown> {
  const loaded = await loadConfig({
    env: {
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify({
        repositories,
        targets: [{ name: 'prod', repository: 'platform', branch: 'main' }],
      }),
    },
    readFile: (path) => readFile(path, 'utf8'),
    cwd: folder,
  });
  return prepareLocalRepositories(loaded).catch((thrown: unknown) => thrown);
}

describe('local repositories checked at start', () => {
  it('given a local path that does not exist when started then it is refused with how to create it', async () => {
    const path = join(folder, 'state.git');
    const error = await prepare([{ name: 'platform', url: path }]);
    expect(error).toBeInstanceOf(ConfigInvalid);
    expect((error as ConfigInvalid).data.issues).toEqual([
      {
        path: 'repositories[0].url',
        message: `names ${path}, which does not exist: create it with "git init --bare ${path}", or set createIfMissing: true`,
      },
    ]);
  });

  it('given createIfMissing when started then an empty bare repository is created on main', async () => {
    const path = join(folder, 'new', 'state.git');
    expect(await prepare([{ name: 'platform', url: path, createIfMissing: true }])).toBeUndefined();
    expect(await readFile(join(path, 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    // Started again, the repository is there and accepted as it is.
    expect(await prepare([{ name: 'platform', url: path }])).toBeUndefined();
  });

  it('given a folder that is not a Git repository when started then it is refused', async () => {
    mkdirSync(join(folder, 'plain'));
    const error = await prepare([{ name: 'platform', url: 'plain' }]);
    expect((error as ConfigInvalid).data.issues).toEqual([
      {
        path: 'repositories[0].url',
        message: `names ${join(folder, 'plain')}, which is not a Git repository`,
      },
    ]);
  });

  it('given a working copy when started then it is refused with the bare-repository hint', async () => {
    mkdirSync(join(folder, 'checkout', '.git'), { recursive: true });
    const error = await prepare([{ name: 'platform', url: 'checkout' }]);
    expect((error as ConfigInvalid).data.issues).toEqual([
      {
        path: 'repositories[0].url',
        message: `names ${join(folder, 'checkout')}, a working copy: name a bare repository (git clone --bare) instead`,
      },
    ]);
  });

  it('given two wrong local repositories when started then both are reported at once', async () => {
    const error = await prepare([
      { name: 'platform', url: 'missing-a.git' },
      { name: 'archive', url: 'missing-b.git' },
    ]);
    expect((error as ConfigInvalid).data.issues.map((issue) => issue.path)).toEqual([
      'repositories[0].url',
      'repositories[1].url',
    ]);
  });
});

describe('local repositories as the app runtime prepares them', () => {
  it('creates a createIfMissing repository and leaves a missing other one to publication, without refusing', async () => {
    const loaded = await loadConfig({
      env: {
        KUBESCRIBE_CONFIG_CONTENT: JSON.stringify({
          repositories: [
            { name: 'platform', url: 'created.git', createIfMissing: true },
            { name: 'archive', url: 'down.git' },
          ],
          targets: [{ name: 'prod', repository: 'platform', branch: 'main' }],
        }),
      },
      readFile: (path) => readFile(path, 'utf8'),
      cwd: folder,
    });
    await expect(prepareLocalRepositories(loaded, { refuse: false })).resolves.toBeUndefined();
    expect(await readFile(join(folder, 'created.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });
});

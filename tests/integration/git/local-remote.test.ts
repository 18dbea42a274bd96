import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';
import { fsck, logOf } from './git-fixture';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kubescribe-local-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

let seq = 0;
const packFiles = async (gitdir: string) =>
  (await readdir(join(gitdir, 'objects', 'pack')))
    .filter((n) => n.endsWith('.idx'))
    .map((n) => join(gitdir, 'objects', 'pack', n));
const repo = (files?: Record<string, string>) =>
  createBareRepo({ root, name: `l${++seq}.git`, ...(files ? { files } : {}) });

/** A `git` CLI writer committing and pushing into the same bare repository in a loop, in its own process. */
function cliLoop(gitdir: string, rounds: number): { done: Promise<string[]> } {
  const work = join(root, `work-${seq}`);
  const landed = join(root, `landed-${seq}`);
  const script = [
    'set -u',
    `git clone -q "${gitdir}" "${work}" && cd "${work}" || exit 1`,
    `for i in $(seq 1 ${rounds}); do`,
    '  git pull -q --rebase origin main >/dev/null 2>&1 || { git rebase --abort >/dev/null 2>&1; git reset -q --hard origin/main; }',
    '  echo "n: $i" > "cli-$i.yaml" && git add . && git commit -q -m "cli $i"',
    `  if git push -q origin HEAD:main 2>/dev/null; then git rev-parse HEAD >> "${landed}"; fi`,
    'done',
  ].join('\n');
  const child = spawn('sh', ['-c', script], {
    env: {
      ...process.env,
      HOME: root,
      GIT_AUTHOR_NAME: 'cli',
      GIT_AUTHOR_EMAIL: 'cli@example.invalid',
      GIT_COMMITTER_NAME: 'cli',
      GIT_COMMITTER_EMAIL: 'cli@example.invalid',
    },
    stdio: 'ignore',
  });
  return {
    done: new Promise((resolve) => {
      child.on('close', async () =>
        resolve((await readFile(landed, 'utf8').catch(() => '')).split('\n').filter(Boolean)),
      );
    }),
  };
}

describe('a local bare repository as the remote', () => {
  it('installs later versions of a large folder as deltas git reads back', async () => {
    const gitdir = await repo(
      Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`ns/cm-${i}.yaml`, `i: ${i}\n`])),
    );
    const writes = Array.from({ length: 4 }, (_, w) =>
      aWrite({ id: `grow-${w}`, files: { [`ns/new-${w}.yaml`]: `w: ${w}\n` } }),
    );

    const result = await publish({
      remote: { kind: 'local', path: gitdir },
      branch: 'main',
      writes,
      cacheDir: join(root, `cache-${seq}`),
    });

    expect(result).toMatchObject({ kind: 'published' });
    if (result.kind !== 'published') return;
    await fsck(gitdir);
    const packs = (await runGit({ args: ['--git-dir', gitdir, 'count-objects', '-v'] })).match(
      /^packs: (\d+)/m,
    );
    expect(Number(packs?.[1])).toBeGreaterThan(0);
    const listing = await runGit({
      args: ['--git-dir', gitdir, 'ls-tree', '--name-only', `${result.head}:ns`],
    });
    expect(listing.split('\n')).toHaveLength(504);
    const verify = await runGit({ cwd: gitdir, args: ['verify-pack', '-v', ...(await packFiles(gitdir))] });
    expect(verify).toMatch(/ tree +\d+ \d+ \d+ 1 [0-9a-f]{40}/);
  });

  it('publishes into it, readable by git', async () => {
    const gitdir = await repo({ 'a.yaml': 'a\n' });

    const result = await publish({
      remote: { kind: 'local', path: gitdir },
      branch: 'main',
      writes: [aWrite({ id: 'l1', files: { 'b.yaml': 'b\n' } })],
      cacheDir: root,
    });

    expect(result).toMatchObject({ kind: 'published' });
    if (result.kind === 'published') expect((await logOf(gitdir))[0]).toBe(`${result.commits.l1} write l1`);
    await fsck(gitdir);
  });

  it('keeps every commit of a git process writing to it at the same time', async () => {
    const gitdir = await repo({ 'a.yaml': 'a\n' });
    const cli = cliLoop(gitdir, 15);
    const ours: string[] = [];
    for (let i = 0; i < 10; i++) {
      const result = await publish({
        remote: { kind: 'local', path: gitdir },
        branch: 'main',
        writes: [aWrite({ id: `ours-${i}`, files: { [`ours-${i}.yaml`]: `i: ${i}\n` } })],
        cacheDir: root,
        maxAttempts: 10,
      });
      expect(result).toMatchObject({ kind: 'published' });
      if (result.kind === 'published') ours.push(result.commits[`ours-${i}`]!);
    }
    const theirs = await cli.done;

    expect(theirs.length).toBeGreaterThan(0);
    for (const sha of [...ours, ...theirs])
      await runGit({ args: ['--git-dir', gitdir, 'merge-base', '--is-ancestor', sha, 'main'] });
    await fsck(gitdir);
  });

  it("waits for git's ref lock and returns within its bound while another process holds it", async () => {
    const gitdir = await repo({ 'a.yaml': 'a\n' });
    const before = await logOf(gitdir);
    await writeFile(join(gitdir, 'refs', 'heads', 'main.lock'), '');

    const result = await publish({
      remote: { kind: 'local', path: gitdir },
      branch: 'main',
      writes: [aWrite({ files: { 'b.yaml': 'b\n' } })],
      cacheDir: root,
      callTimeoutMs: 300,
    });

    expect(result).toEqual({ kind: 'timeout', step: 'lock', afterMs: 300 });
    await rm(join(gitdir, 'refs', 'heads', 'main.lock'));
    await new Promise((resolve) => setTimeout(resolve, 100)); // past any late lock attempt
    expect(await logOf(gitdir)).toEqual(before);
  });
});

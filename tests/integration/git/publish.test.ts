import { GitPublishInputInvalid } from '../../../shared/git/errors';
import { publish } from '../../../shared/git/publish';
import { commitAsAnotherWriter } from '../../support/app/branch-observations';
import { aWrite } from '../../support/git/a-write';
import { runGit } from '../../support/git/run-git';
import { fsck, type GitWorld, logOf, showFile, startGitWorld } from './git-fixture';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterAll(() => world.stop());

describe('publishing pending writes over smart HTTP', () => {
  it('lands each write as one commit with its author, message and write trailer', async () => {
    const { url, gitdir } = await world.repo({ files: { 'README.md': 'hello\n' } });
    const first = aWrite({
      id: 'w-a',
      files: { 'apps/web.yaml': 'kind: Deployment\n' },
      message: '[CREATE] apps/v1/deployments/web',
    });
    const second = aWrite({ id: 'w-b', files: { 'apps/db.yaml': 'kind: StatefulSet\n' } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [first, second],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: false });
    if (result.kind !== 'published') return;
    const log = await logOf(gitdir);
    expect(log).toHaveLength(3);
    expect(log[0]).toBe(`${result.commits['w-b']} write w-b`);
    expect(log[1]).toBe(`${result.commits['w-a']} [CREATE] apps/v1/deployments/web`);
    expect(result.head).toBe(result.commits['w-b']);
    const raw = await runGit({ args: ['--git-dir', gitdir, 'cat-file', 'commit', result.commits['w-a']!] });
    expect(raw).toContain('author Alice Example <alice@example.invalid> 1750000000 +0100');
    expect(raw).toContain('committer kubescribe <kubescribe@example.invalid> 1750000000 +0100');
    expect(raw).toMatch(/\n\nKubescribe-Write: w-a$/);
    expect(await showFile(gitdir, 'main', 'apps/web.yaml')).toBe('kind: Deployment');
    expect(await showFile(gitdir, 'main', 'README.md')).toBe('hello');
    await fsck(gitdir);
  });

  it('orders tree entries as git does: by name bytes, a folder as if its name ended in a slash', async () => {
    const { url, gitdir } = await world.repo();
    const files = {
      'a.b': '1\n',
      'a-b': '2\n',
      'a/x.yaml': '3\n',
      a0: '4\n',
      'é.yaml': '5\n',
      'z.yaml': '6\n',
      'Z.yaml': '7\n',
    };

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'names', files })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    const entries = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '-z', '--name-only', 'main'] });
    // git mktree sorts what it is given, so its tree is the reference for ours
    const listing = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '-z', 'main'] });
    const gitsOwn = await runGit({ args: ['--git-dir', gitdir, 'mktree', '-z'], input: listing });
    expect(gitsOwn).toBe(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main^{tree}'] }));
    expect(entries.split('\0').filter(Boolean)).toEqual([
      'Z.yaml',
      'a-b',
      'a.b',
      'a',
      'a0',
      'z.yaml',
      'é.yaml',
    ]);
    await fsck(gitdir);
  });

  it('sends later versions of a large folder as deltas that git resolves to the same trees', async () => {
    const files = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`ns/cm-${i}.yaml`, `i: ${i}\n`]));
    const { url, gitdir } = await world.repo({ files });
    const writes = Array.from({ length: 4 }, (_, w) =>
      aWrite({ id: `grow-${w}`, files: { [`ns/new-${w}.yaml`]: `w: ${w}\n`, 'ns/cm-7.yaml': `w: ${w}\n` } }),
    );

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes,
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published' });
    if (result.kind !== 'published') return;
    await fsck(gitdir);
    for (const [w, write] of writes.entries()) {
      const listing = await runGit({
        args: ['--git-dir', gitdir, 'ls-tree', '--name-only', `${result.commits[write.id]}:ns`],
      });
      expect(listing.split('\n')).toHaveLength(501 + w);
      expect(await showFile(gitdir, result.commits[write.id]!, 'ns/cm-7.yaml')).toBe(`w: ${w}`);
    }
  });

  it('makes no commit for a write that changes nothing, but always commits an empty save record', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a: 1\n' } });
    const same = aWrite({ id: 'same', files: { 'a.yaml': 'a: 1\n' } });
    const save = aWrite({ id: 'save', message: 'save: release 1.2', empty: true });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [same, save],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published', commits: { same: null } });
    if (result.kind !== 'published') return;
    expect(await logOf(gitdir)).toEqual([
      `${result.commits.save} save: release 1.2`,
      expect.stringMatching(/ seed$/),
    ]);
    await fsck(gitdir);
  });

  it('deletes paths and applies a snapshot with prune Always, keeping files outside the scope', async () => {
    const { url, gitdir } = await world.repo({
      files: { 't/ns/a.yaml': 'a\n', 't/ns/b.yaml': 'b\n', 't/other/c.yaml': 'c\n', 't/gone.yaml': 'x\n' },
    });
    const write = aWrite({
      id: 'snap',
      targetPath: 't',
      operations: [
        { op: 'delete', path: 't/gone.yaml' },
        { op: 'snapshot', scope: 't/ns', prune: 'Always', files: [{ path: 't/ns/b.yaml', content: 'b2\n' }] },
      ],
    });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [write],
      cacheDir: await world.cacheDir(),
    });

    expect(result.kind).toBe('published');
    const files = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'main'] });
    expect(files.split('\n')).toEqual(['t/ns/b.yaml', 't/other/c.yaml']);
    expect(await showFile(gitdir, 'main', 't/ns/b.yaml')).toBe('b2');
  });

  it('sweeps only the files a per-type snapshot covers, across namespaces', async () => {
    const { url, gitdir } = await world.repo({
      files: {
        't/a/apps/deployments/old.yaml': 'old\n',
        't/b/apps/deployments/web.yaml': 'web\n',
        't/a/configmaps/keep.yaml': 'keep\n',
      },
    });
    const write = aWrite({
      id: 'per-type',
      targetPath: 't',
      operations: [
        {
          op: 'snapshot',
          scope: 't',
          match: '^[^/]+/apps/deployments/[^/]+\\.yaml$',
          prune: 'Always',
          files: [{ path: 't/b/apps/deployments/web.yaml', content: 'web2\n' }],
        },
      ],
    });

    expect(
      (
        await publish({
          remote: { kind: 'http', url },
          branch: 'main',
          writes: [write],
          cacheDir: await world.cacheDir(),
        })
      ).kind,
    ).toBe('published');
    const files = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'main'] });
    expect(files.split('\n')).toEqual(['t/a/configmaps/keep.yaml', 't/b/apps/deployments/web.yaml']);
  });

  it('keeps files a snapshot lacks when its prune mode is OnEvent', async () => {
    const { url, gitdir } = await world.repo({ files: { 'ns/a.yaml': 'a\n' } });
    const write = aWrite({
      id: 'keep',
      operations: [
        { op: 'snapshot', scope: 'ns', prune: 'OnEvent', files: [{ path: 'ns/b.yaml', content: 'b\n' }] },
      ],
    });

    await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [write],
      cacheDir: await world.cacheDir(),
    });

    const files = await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '-r', '--name-only', 'main'] });
    expect(files.split('\n')).toEqual(['ns/a.yaml', 'ns/b.yaml']);
  });

  it('refuses a write whose path leaves its target, naming the write, and publishes nothing', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const before = await logOf(gitdir);
    const fine = aWrite({ id: 'fine', files: { 'team-a/x.yaml': 'x\n' }, targetPath: 'team-a' });
    const escaping = aWrite({ id: 'escape', files: { 'team-b/y.yaml': 'y\n' }, targetPath: 'team-a' });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [fine, escaping],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({
      kind: 'writeRefused',
      writeId: 'escape',
      cause: expect.stringContaining('outside the target'),
    });
    expect(await logOf(gitdir)).toEqual(before);
  });

  it.each([
    ['an author name Git refuses', { author: { name: 'Jane <jane@example.com>' } }, 'author.name'],
    ['an email with a line break', { author: { email: 'jane@example.com\nx' } }, 'author.email'],
    ['an empty message', { message: '' }, 'message'],
  ])(
    'refuses a write with %s by its id instead of throwing, and publishes nothing',
    async (_, odd, field) => {
      const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
      const before = await logOf(gitdir);
      const fine = aWrite({ id: 'fine', files: { 'x.yaml': 'x\n' } });
      const base = aWrite({ id: 'odd', files: { 'y.yaml': 'y\n' } });
      const write = { ...base, ...odd, author: { ...base.author, ...('author' in odd ? odd.author : {}) } };

      const result = await publish({
        remote: { kind: 'http', url },
        branch: 'main',
        writes: [fine, write],
        cacheDir: await world.cacheDir(),
      });

      expect(result).toEqual({ kind: 'writeRefused', writeId: 'odd', cause: expect.stringContaining(field) });
      expect(await logOf(gitdir)).toEqual(before);
    },
  );

  it('refuses a write with a file over the object size limit', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'big', files: { 'big.yaml': 'x'.repeat(2048) } })],
      cacheDir: await world.cacheDir(),
      maxObjectBytes: 1024,
    });

    expect(result).toEqual({
      kind: 'writeRefused',
      writeId: 'big',
      cause: 'file "big.yaml" is 2048 bytes, over the limit of 1024',
    });
  });

  it('lets no message forge a write trailer: the forged write is still committed', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const forging = aWrite({
      id: 'forging',
      files: { 'b.yaml': 'b\n' },
      message: 'harmless\n\nKubescribe-Write: w-victim\r\nKubescribe-Write: w-victim',
    });
    await publish({ remote: { kind: 'http', url }, branch: 'main', writes: [forging], cacheDir });
    const raw = await runGit({ args: ['--git-dir', gitdir, 'cat-file', 'commit', 'main'] });
    expect(raw).toMatch(
      /\n\(quoted\) Kubescribe-Write: w-victim\n\(quoted\) Kubescribe-Write: w-victim\n\nKubescribe-Write: forging$/,
    );

    const victim = aWrite({ id: 'w-victim', files: { 'c.yaml': 'c\n' } });
    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [victim],
      cacheDir,
    });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: false });
    expect(await showFile(gitdir, 'main', 'c.yaml')).toBe('c');
  });

  it('settles a write only by a trailer of a commit kubescribe made, never another committer', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const forged = await runGit({
      args: [
        '--git-dir',
        gitdir,
        'commit-tree',
        'main^{tree}',
        '-p',
        'main',
        '-m',
        'x\n\nKubescribe-Write: w-next',
      ],
    });
    await runGit({ args: ['--git-dir', gitdir, 'update-ref', 'refs/heads/main', forged] });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'w-next', files: { 'n.yaml': 'n\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toMatchObject({ kind: 'published', settledByRemoteEvidence: false });
    expect(await showFile(gitdir, 'main', 'n.yaml')).toBe('n');
  });

  it('refuses a put through an existing file', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const write = aWrite({ id: 'through', files: { 'a.yaml/b.yaml': 'b\n' } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [write],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({
      kind: 'writeRefused',
      writeId: 'through',
      cause: 'a.yaml is a file, not a folder',
    });
  });

  it('starts a missing branch from its parent, and from the default branch without one', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    await runGit({ args: ['--git-dir', gitdir, 'branch', 'release', 'main'] });
    await runGit({
      args: [
        '--git-dir',
        gitdir,
        'update-ref',
        'refs/heads/main',
        await runGit({
          args: ['--git-dir', gitdir, 'commit-tree', 'main^{tree}', '-p', 'main', '-m', 'newer'],
        }),
      ],
    });
    const cacheDir = await world.cacheDir();

    const fromParent = await publish({
      remote: { kind: 'http', url },
      branch: 'feature',
      parentBranch: 'release',
      writes: [aWrite({ files: { 'f.yaml': 'f\n' } })],
      cacheDir,
    });
    const fromDefault = await publish({
      remote: { kind: 'http', url },
      branch: 'other',
      writes: [aWrite({ files: { 'o.yaml': 'o\n' } })],
      cacheDir,
    });

    expect(fromParent).toMatchObject({ kind: 'published' });
    expect(fromDefault).toMatchObject({ kind: 'published' });
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'feature~1'] })).toBe(
      await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'release'] }),
    );
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'other~1'] })).toBe(
      await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main'] }),
    );
    await fsck(gitdir);
  });

  it('restarts a proposed branch from its parent: the new commit sits on the parent head and replaces the old branch (a compare-and-swap against its tip)', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    // the proposed branch's earlier pull request was merged: main moved past it
    await publish({
      remote: { kind: 'http', url },
      branch: 'kubescribe/prod',
      parentBranch: 'main',
      writes: [aWrite({ id: 'old', files: { 'old.yaml': 'old\n' } })],
      cacheDir,
    });
    const merged = await runGit({
      args: [
        '--git-dir',
        gitdir,
        'commit-tree',
        'kubescribe/prod^{tree}',
        '-p',
        'main',
        '-p',
        'kubescribe/prod',
        '-m',
        'Merge',
      ],
    });
    await runGit({ args: ['--git-dir', gitdir, 'update-ref', 'refs/heads/main', merged] });
    const oldTip = await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod'] });

    const restarted = await publish({
      remote: { kind: 'http', url },
      branch: 'kubescribe/prod',
      parentBranch: 'main',
      restartFromParent: true,
      writes: [aWrite({ id: 'new', files: { 'new.yaml': 'new\n' } })],
      cacheDir,
    });

    expect(restarted).toMatchObject({ kind: 'published' });
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod~1'] })).toBe(merged);
    expect(
      await runGit({
        args: ['--git-dir', gitdir, 'merge-base', '--is-ancestor', oldTip, 'kubescribe/prod'],
      }).then(
        () => 'ancestor',
        () => 'replaced',
      ),
    ).toBe('ancestor'); // the merge commit holds the old tip: nothing of it is lost
    expect(
      await runGit({ args: ['--git-dir', gitdir, 'rev-list', '--count', 'main..kubescribe/prod'] }),
    ).toBe('1');
    await fsck(gitdir);
  });

  it('a restart after a pull request closed without merge leaves the base head and the new commit only', async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    await publish({
      remote: { kind: 'http', url },
      branch: 'kubescribe/prod',
      parentBranch: 'main',
      writes: [aWrite({ id: 'old', files: { 'old.yaml': 'old\n' } })],
      cacheDir,
    });
    // a closed pull request's branch: main never took it
    const restarted = await publish({
      remote: { kind: 'http', url },
      branch: 'kubescribe/prod',
      parentBranch: 'main',
      restartFromParent: true,
      writes: [aWrite({ id: 'new', files: { 'new.yaml': 'new\n' } })],
      cacheDir,
    });

    expect(restarted).toMatchObject({ kind: 'published' });
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod~1'] })).toBe(
      await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main'] }),
    );
    expect(await runGit({ args: ['--git-dir', gitdir, 'ls-tree', '--name-only', 'kubescribe/prod'] })).toBe(
      'a.yaml\nnew.yaml',
    );
    await fsck(gitdir);
  });

  it("replays a proposed branch's own commits on its parent's new head, each once with its trailer and author, its files winning", async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n', 'shared.yaml': 'base\n' } });
    const cacheDir = await world.cacheDir();
    const onProposed = (id: string, files: Record<string, string>, restOf: object = {}) =>
      publish({
        remote: { kind: 'http', url },
        branch: 'kubescribe/prod',
        parentBranch: 'main',
        replayOnParent: true,
        writes: [aWrite({ id, files, ...restOf })],
        cacheDir,
      });
    await onProposed('p1', { 'p1.yaml': 'one\n', 'shared.yaml': 'ours\n' });
    await onProposed('p2', { 'p2.yaml': 'two\n' });
    // the base moves: a person's merge of something else, touching the same file
    const theirs = (
      await commitAsAnotherWriter(
        gitdir,
        'main',
        { 'shared.yaml': 'theirs\n', 'docs.md': 'theirs\n' },
        'theirs',
      )
    ).trim();

    const result = await onProposed('p3', { 'p3.yaml': 'three\n' });

    expect(result).toMatchObject({ kind: 'published' });
    const log = (
      await runGit({ args: ['--git-dir', gitdir, 'log', '--format=%H %s', 'main..kubescribe/prod'] })
    )
      .trim()
      .split('\n');
    expect(log).toHaveLength(3);
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod~3'] })).toBe(theirs);
    const trailers = await runGit({
      args: [
        '--git-dir',
        gitdir,
        'log',
        '--format=%(trailers:key=Kubescribe-Write,valueonly)',
        'main..kubescribe/prod',
      ],
    });
    expect(trailers.split('\n').filter(Boolean)).toEqual(['p3', 'p2', 'p1']);
    expect(await showFile(gitdir, 'kubescribe/prod', 'shared.yaml')).toBe('ours');
    expect(await showFile(gitdir, 'kubescribe/prod', 'docs.md')).toBe('theirs');
    expect(await showFile(gitdir, 'kubescribe/prod', 'p1.yaml')).toBe('one');
    const author = await runGit({
      args: ['--git-dir', gitdir, 'log', '-1', '--format=%an <%ae>', 'kubescribe/prod~2'],
    });
    expect(author.trim()).toBe('Alice Example <alice@example.invalid>');
    await fsck(gitdir);

    // the base did not move since: the next publication only adds
    const tip = await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod'] });
    await onProposed('p4', { 'p4.yaml': 'four\n' });
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod~1'] })).toBe(tip);
  });

  it("replays nothing below a commit kubescribe did not make on the proposed branch: a person's commit there stays", async () => {
    const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const cacheDir = await world.cacheDir();
    const onProposed = (id: string, files: Record<string, string>) =>
      publish({
        remote: { kind: 'http', url },
        branch: 'kubescribe/prod',
        parentBranch: 'main',
        replayOnParent: true,
        writes: [aWrite({ id, files })],
        cacheDir,
      });
    await onProposed('p1', { 'p1.yaml': 'one\n' });
    const person = await runGit({
      args: [
        '--git-dir',
        gitdir,
        'commit-tree',
        'kubescribe/prod^{tree}',
        '-p',
        'kubescribe/prod',
        '-m',
        'a fix by a person',
      ],
    });
    await runGit({ args: ['--git-dir', gitdir, 'update-ref', 'refs/heads/kubescribe/prod', person] });
    // kubescribe's next commit lands on the person's: the branch's own commits start above it
    await onProposed('p2', { 'p2.yaml': 'two\n' });
    const theirs = await runGit({
      args: ['--git-dir', gitdir, 'commit-tree', 'main^{tree}', '-p', 'main', '-m', 'theirs'],
    });
    await runGit({ args: ['--git-dir', gitdir, 'update-ref', 'refs/heads/main', theirs] });

    expect(await onProposed('p3', { 'p3.yaml': 'three\n' })).toMatchObject({ kind: 'published' });
    // main does not hold the person's commit: nothing is replayed, and it stays on the branch
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'kubescribe/prod~2'] })).toBe(person);
    expect(await showFile(gitdir, 'kubescribe/prod', 'p1.yaml')).toBe('one');
  });

  it('says the parent is missing when neither the branch nor its parent exist', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'feature',
      parentBranch: 'nope',
      writes: [aWrite({ files: { 'f.yaml': 'f\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result).toEqual({ kind: 'parentMissing', parentBranch: 'nope' });
  });

  it('gives an empty repository a root commit', async () => {
    const { url, gitdir } = await world.repo();

    const result = await publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [aWrite({ id: 'root', files: { 'a.yaml': 'a\n' } })],
      cacheDir: await world.cacheDir(),
    });

    expect(result.kind).toBe('published');
    expect(await runGit({ args: ['--git-dir', gitdir, 'rev-list', '--parents', 'main'] })).toMatch(
      /^[0-9a-f]{40}$/,
    );
    await fsck(gitdir);
  });

  it('throws a typed input error, naming the problem, for writes with the same id', async () => {
    const { url } = await world.repo({ files: { 'a.yaml': 'a\n' } });
    const twice = aWrite({ id: 'dup', files: { 'b.yaml': 'b\n' } });

    const attempt = publish({
      remote: { kind: 'http', url },
      branch: 'main',
      writes: [twice, twice],
      cacheDir: await world.cacheDir(),
    });

    await expect(attempt).rejects.toBeInstanceOf(GitPublishInputInvalid);
    await expect(attempt).rejects.toThrow(/write ids must be unique/);
  });
});

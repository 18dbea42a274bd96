// Two owners of one publication: an attempt that outlives its activity timeout keeps running while
// the next attempt (or a duplicated execution of the same one) publishes the same writes on the same
// cache and remote. Each write lands once, the cache stays sound, and whichever finishes second
// settles on what the first landed.
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { fsck, type GitWorld, logOf, startGitWorld } from './git-fixture';

let world: GitWorld;
beforeAll(async () => {
  world = await startGitWorld();
});
afterEach(() => world.proxy.reset());
afterAll(() => world.stop());

const bounds = { callTimeoutMs: 20_000, publishTimeoutMs: 60_000 };

it('given the same writes published twice at once on one cache, each lands once and the cache stays sound', async () => {
  const { url, gitdir } = await world.repo({ files: { 'a.yaml': 'a\n' } });
  const cacheDir = await world.cacheDir();
  const writes = [
    aWrite({ id: 'first', files: { 'b.yaml': 'b\n' } }),
    aWrite({ id: 'second', files: { 'c.yaml': 'c\n' } }),
  ];
  // The late owner is slowed at the push, so the other lands first and it must settle on that.
  world.proxy.inject({ on: 'push', fault: { kind: 'delay', ms: 500 } });

  const [late, next] = await Promise.all([
    publish({ remote: { kind: 'http', url }, branch: 'main', writes, cacheDir, ...bounds }),
    publish({ remote: { kind: 'http', url }, branch: 'main', writes, cacheDir, ...bounds }),
  ]);

  // One owner may lose a race for the shared cache on a busy machine: that is a transient failure,
  // which the branch retries; what must never happen is a write landing twice or a refusal.
  for (const result of [late, next]) expect(['published', 'transient']).toContain(result.kind);
  if (late.kind === 'published' && next.kind === 'published') expect(late.commits).toEqual(next.commits);
  await fsck(gitdir);

  // The shared cache still works: the branch's next attempt finds what landed and lands the rest.
  const again = await publish({ remote: { kind: 'http', url }, branch: 'main', writes, cacheDir, ...bounds });
  expect(again).toMatchObject({ kind: 'published' });
  if (late.kind === 'published' || next.kind === 'published')
    expect(again).toMatchObject({ settledByRemoteEvidence: true });
  const log = await logOf(gitdir);
  expect(log.map((line) => line.slice(41))).toEqual(['write second', 'write first', 'seed']);
  await fsck(gitdir);
});

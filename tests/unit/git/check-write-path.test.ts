/**
 * Every path a write puts or deletes is checked before the tree is touched; a resync checks every
 * file of a cluster, so the check is written for speed, and these pin what it still refuses: Git
 * itself refuses a `.git` name in any case (`verify_path` in git's read-cache.c, with
 * `core.protectNTFS`/`protectHFS` on by default for case folding) and control characters.
 */
import { checkWritePath } from '../../../shared/git/check-write-path';

describe('checkWritePath', () => {
  it.each([
    ['ns/cm/a.yaml', '.', ['ns', 'cm', 'a.yaml']],
    ['clusters/prod/ns/a.yaml', 'clusters/prod', ['clusters', 'prod', 'ns', 'a.yaml']],
    ['ns/.gitkeep', '.', ['ns', '.gitkeep']],
    ['ns/é.yaml', '.', ['ns', 'é.yaml']],
  ])('given %s inside %s, then it is split into its names', (path, inside, names) => {
    expect(checkWritePath({ path, inside })).toEqual(names);
  });

  it.each([
    ['ns/a\u0001.yaml', 'contains a control character'],
    ['ns/a\n.yaml', 'contains a control character'],
    ['\u001fns/a.yaml', 'contains a control character'],
    ['ns/.git/config', 'names a .git folder'],
    ['ns/.GiT/config', 'names a .git folder'],
    ['.git', 'names a .git folder'],
    ['ns//a.yaml', 'is not normalized'],
    ['ns/../a.yaml', 'is not normalized'],
    ['/ns/a.yaml', 'must be repository-relative'],
    ['', 'must be repository-relative'],
  ])('given %j, then it is refused: %s', (path, reason) => {
    expect(checkWritePath({ path, inside: '.' })).toEqual({ refused: expect.stringContaining(reason) });
  });

  it('given a path outside the target, then it is refused', () => {
    expect(checkWritePath({ path: 'team-b/a.yaml', inside: 'team-a' })).toEqual({
      refused: expect.stringContaining('outside the target'),
    });
  });
});

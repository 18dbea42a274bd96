// A pack changed on disk after it was indexed (a bad disk, or someone who could write the folder):
// git's own readers check every object against its id (`git fsck`), and so must the publisher, or
// the altered tree would become part of the next commit. The pack is rewritten as git writes an
// uncompressed one (`pack.compression=0`: zlib stored blocks, RFC 1950/1951) with one byte of a
// tree entry's name changed and every checksum recomputed (zlib's, the pack's and the index's,
// gitformat-pack), so only the object's id can tell.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { createBareRepo } from '../../support/git/create-bare-repo';
import { runGit } from '../../support/git/run-git';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kubescribe-corrupt-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** Changes byte `at` of the object `oid`'s content inside its uncompressed pack, keeping the zlib stream valid. */
async function alterPackedObject(
  gitdir: string,
  oid: string,
  change: (content: Buffer) => void,
): Promise<void> {
  const packDir = join(gitdir, 'objects', 'pack');
  const idx = (await readdir(packDir)).find((name) => name.endsWith('.idx'))!;
  const listing = await runGit({ args: [`--git-dir=${gitdir}`, 'verify-pack', '-v', join(packDir, idx)] });
  const row = listing
    .split('\n')
    .find((line) => line.startsWith(oid))!
    .split(/\s+/);
  const [size, offset] = [Number(row[2]), Number(row[4])];
  const packPath = join(packDir, idx.replace(/\.idx$/, '.pack'));
  const pack = await readFile(packPath);
  let at = offset;
  while (pack[at]! & 0x80) at++; // the object header: type and size, a varint
  at++;
  // zlib header (78 01), one stored block: BFINAL|BTYPE=00, LEN, NLEN, the bytes, then ADLER32
  expect([pack[at], pack[at + 1], pack[at + 2]]).toEqual([0x78, 0x01, 0x01]);
  expect(pack.readUInt16LE(at + 3)).toBe(size);
  const content = pack.subarray(at + 7, at + 7 + size);
  change(content);
  pack.writeUInt32BE(adler32(content), at + 7 + size);
  // the pack's trailing checksum, and the index's copy of it (and its own), as git would write them
  const packSum = createHash('sha1').update(pack.subarray(0, -20)).digest();
  packSum.copy(pack, pack.length - 20);
  await writeFile(packPath, pack);
  const index = await readFile(join(packDir, idx));
  packSum.copy(index, index.length - 40);
  createHash('sha1')
    .update(index.subarray(0, -20))
    .digest()
    .copy(index, index.length - 20);
  await writeFile(join(packDir, idx), index);
}

it('refuses to build on a packed tree that does not hash to its id, and publishes nothing', async () => {
  const gitdir = await createBareRepo({
    root,
    name: 'state.git',
    files: { 'README.md': 'cluster state\n', 'apps/web.yaml': 'replicas: 1\n' },
  });
  await runGit({ args: [`--git-dir=${gitdir}`, '-c', 'pack.compression=0', 'repack', '-a', '-d', '-F'] });
  const head = (await runGit({ args: [`--git-dir=${gitdir}`, 'rev-parse', 'main'] })).trim();
  const tree = (await runGit({ args: [`--git-dir=${gitdir}`, 'rev-parse', 'main^{tree}'] })).trim();
  // README.md → SEADME.md: still a well-formed, well-ordered tree, just not the one its id names
  await alterPackedObject(gitdir, tree, (content) => {
    content[content.indexOf('README.md')] = 'S'.charCodeAt(0);
  });

  const result = await publish({
    remote: { kind: 'local', path: gitdir },
    branch: 'main',
    writes: [aWrite({ files: { 'apps/api.yaml': 'replicas: 2\n' } })],
    cacheDir: join(root, 'cache'),
  });

  expect(result).toMatchObject({ kind: 'transient', cause: expect.stringContaining(`${tree} is corrupt`) });
  expect((await runGit({ args: [`--git-dir=${gitdir}`, 'rev-parse', 'main'] })).trim()).toBe(head);
});

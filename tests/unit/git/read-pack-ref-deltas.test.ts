/**
 * A ref-delta names its base by SHA (Documentation/gitformat-pack.txt, OBJ_REF_DELTA), and nothing
 * in the format puts the base first: git's index-pack resolves deltas on bases anywhere in the pack
 * (builtin/index-pack.c, resolve_deltas after the whole pack is parsed). A server that was not
 * offered `ofs-delta` sends ref-deltas only (`git pack-objects` without `--delta-base-offset`).
 * Each pack here is indexed as git indexes it; a pack whose deltas name no object in it is refused.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { indexPack } from '../../../shared/git/index-pack';
import { readPack } from '../../../shared/git/unpack-objects';

const OBJ_BLOB = 3;
const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ref-deltas-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const git = (args: string[], input?: Buffer) =>
  execFileSync('git', args, {
    cwd: dir,
    input,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir },
  });

/** git's own index of `pack` (`git index-pack` on the file, outside any repository). */
function gitIndexOf(pack: Buffer, name: string): Buffer {
  const file = join(dir, `${name}.pack`);
  writeFileSync(file, pack);
  git(['index-pack', file]);
  return readFileSync(join(dir, `${name}.idx`));
}

function entryHeader(type: number, size: number): Buffer {
  const bytes = [(type << 4) | (size & 0x0f)];
  for (let rest = size >> 4; rest > 0; rest >>= 7) {
    bytes[bytes.length - 1]! |= 0x80;
    bytes.push(rest & 0x7f);
  }
  return Buffer.from(bytes);
}
const blob = (text: string) => Buffer.concat([entryHeader(OBJ_BLOB, text.length), deflateSync(text)]);
const refDelta = (baseOid: string, delta: Buffer) =>
  Buffer.concat([entryHeader(OBJ_REF_DELTA, delta.length), Buffer.from(baseOid, 'hex'), deflateSync(delta)]);
/** An ofs-delta on the entry `distance` bytes before it (under 128: one byte of offset). */
const ofsDelta = (distance: number, delta: Buffer) =>
  Buffer.concat([entryHeader(OBJ_OFS_DELTA, delta.length), Buffer.from([distance]), deflateSync(delta)]);
function packOf(entries: Buffer[]): Buffer {
  const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, entries.length]);
  const body = Buffer.concat([header, ...entries]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
const blobOid = (text: string) => createHash('sha1').update(`blob ${text.length}\0${text}`).digest('hex');
const objectsOf = (pack: Buffer) => {
  const seen: string[] = [];
  readPack({ pack, visit: ({ data }) => seen.push(data.toString()) });
  return seen;
};

it('resolves a chain of ref-deltas whose bases come later in the pack, as git indexes it', () => {
  // "hello world" ← "hello!" (copy 5, insert "!") ← "hello!?" (copy 6, insert "?"), stored last first,
  // and "hello!?." as an ofs-delta on the first entry, which waits with it for the blob at the end
  const first = refDelta(blobOid('hello!'), Buffer.from([6, 7, 0x90, 6, 1, 0x3f]));
  const pack = packOf([
    first,
    ofsDelta(first.length, Buffer.from([7, 8, 0x90, 7, 1, 0x2e])),
    refDelta(blobOid('hello world'), Buffer.from([11, 6, 0x90, 5, 1, 0x21])),
    blob('hello world'),
  ]);
  expect(objectsOf(pack).sort()).toEqual(['hello world', 'hello!', 'hello!?', 'hello!?.']);
  expect(indexPack({ pack }).idx.equals(gitIndexOf(pack, 'later-bases'))).toBe(true);
});

it('indexes the ref-delta pack git sends a client that did not ask for ofs-delta, as git does', () => {
  const lines = (i: number) =>
    Array.from({ length: 60 }, (_, k) => `  key-${k}: value-${k}${k === i % 60 ? `-${i}` : ''}`).join('\n');
  git(['init', '-q', '--bare', 'source.git']);
  const oids = Array.from({ length: 40 }, (_, i) =>
    git(
      ['--git-dir=source.git', 'hash-object', '-w', '--stdin'],
      Buffer.from(`name: obj-${i}\n${lines(i)}\n`),
    )
      .toString()
      .trim(),
  );
  const pack = git(
    ['--git-dir=source.git', 'pack-objects', '--stdout', '--window=50', '--depth=50'],
    Buffer.from(`${oids.join('\n')}\n`),
  );
  const listing = gitIndexOf(pack, 'sent');
  const verified = git(['verify-pack', '-v', join(dir, 'sent.pack')]).toString();
  // most objects are ref-deltas (`git verify-pack -v` names a base on each delta's line)
  expect(
    verified.split('\n').filter((l) => /^[0-9a-f]{40} blob .* [0-9a-f]{40}$/.test(l)).length,
  ).toBeGreaterThan(20);
  expect(indexPack({ pack }).idx.equals(listing)).toBe(true);
});

it('refuses ref-deltas that name each other and no object of the pack', () => {
  const pack = packOf([
    refDelta(blobOid('b'), Buffer.from([1, 1, 1, 0x61])),
    refDelta(blobOid('a'), Buffer.from([1, 1, 1, 0x62])),
  ]);
  expect(() => objectsOf(pack)).toThrow('delta base missing from the pack');
});

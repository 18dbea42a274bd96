/**
 * A pack's entries are zlib streams laid end to end, each preceded by a header declaring the size it
 * inflates to (Documentation/gitformat-pack.txt). git's index-pack refuses an entry whose stream does
 * not end at exactly that size (builtin/index-pack.c, unpack_entry_data: `if (stream.total_out !=
 * size || status != Z_STREAM_END) bad_object(offset, _("inflate returned %d"), status)`); so does
 * the inflater, whether it reuses one zlib context (node's binding) or inflates each entry alone.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { createPackInflater, type PackInflater } from '../../../shared/git/pack-inflater';
import { readPack } from '../../../shared/git/unpack-objects';

const texts = ['apiVersion: v1\nkind: ConfigMap\n', 'x'.repeat(70_000), '', 'name: last\n'];
/** The texts' zlib streams one after another, and a trailing 20 bytes like a pack's checksum. */
const streams = Buffer.concat([...texts.map((t) => deflateSync(t)), Buffer.alloc(20, 0xab)]);

describe.each([
  ['one zlib context reused, into its own output', true, 'inflate'],
  ['one zlib context reused, into a buffer of the entry', true, 'inflateOwn'],
  ['a zlib context per entry', false, 'inflate'],
  ['a zlib context per entry, kept', false, 'inflateOwn'],
] as const)('the pack inflater, %s', (_name, reuse, method) => {
  const inflate = (inflater: PackInflater, ...args: Parameters<PackInflater['inflate']>) =>
    inflater[method](...args);

  it('inflates streams laid end to end, each to its bytes and its length in the pack', () => {
    const inflater = createPackInflater({ reuse });
    // on node 20 to 24 the reused context is what runs: a fallback taken unseen would hide its cost
    expect(inflater.reusesContext).toBe(reuse);
    let at = 0;
    const kept: Buffer[] = [];
    for (const text of texts) {
      const { data, consumed } = inflate(inflater, streams, at, streams.length - 20, text.length);
      expect(data.toString()).toBe(text);
      expect(consumed).toBe(deflateSync(text).length);
      kept.push(data);
      at += consumed;
    }
    expect(at).toBe(streams.length - 20);
    // bytes of their own are not overwritten by the next entry, and with the reused context they
    // are the entry's alone: a large blob is inflated once into its own buffer, not into the shared
    // output and copied (twice its size at once)
    if (method === 'inflateOwn') expect(kept.map(String)).toEqual(texts);
    if (method === 'inflateOwn' && reuse)
      expect(kept.map((b) => b.buffer.byteLength)).toEqual(texts.map((t) => t.length));
    inflater.close();
  });

  it('refuses a stream that inflates to more than its entry declares', () => {
    const inflater = createPackInflater({ reuse });
    expect(() => inflate(inflater, streams, 0, streams.length, texts[0]!.length - 1)).toThrow(
      /does not inflate to the \d+ bytes it declares/,
    );
  });

  it('refuses a stream that ends short of what its entry declares', () => {
    const inflater = createPackInflater({ reuse });
    expect(() => inflate(inflater, streams, 0, streams.length, texts[0]!.length + 1)).toThrow();
  });

  it('refuses a stream cut short by the end of the pack', () => {
    const inflater = createPackInflater({ reuse });
    const first = deflateSync(texts[1]!);
    expect(() => inflate(inflater, first, 0, first.length - 10, texts[1]!.length)).toThrow(
      /unexpected end of file/,
    );
  });

  it('refuses an entry declaring more bytes than its stream could inflate to, before making room for them', () => {
    const inflater = createPackInflater({ reuse });
    // 40 bytes of deflate inflate to at most 41,280 (deflate's 1032:1)
    expect(() => inflate(inflater, streams, 0, 40, 41_281)).toThrow(
      'pack entry declares 41281 bytes, more than its stream can hold',
    );
  });

  it('refuses bytes that are not a zlib stream', () => {
    const inflater = createPackInflater({ reuse });
    const garbage = Buffer.from('PACK is not zlib');
    expect(() => inflate(inflater, garbage, 0, garbage.length, 4)).toThrow(/incorrect header check/);
  });
});

it('a pack whose blob inflates to other than its header declares is refused, as git refuses it', () => {
  const content = 'kind: Secret\n';
  // header: blob (type 3), declared size one byte short of the content (fits the low nibble)
  const entry = Buffer.concat([Buffer.from([(3 << 4) | (content.length - 1)]), deflateSync(content)]);
  const body = Buffer.concat([Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 1]), entry]);
  const pack = Buffer.concat([body, createHash('sha1').update(body).digest()]);
  expect(() => readPack({ pack, visit: () => undefined })).toThrow(/does not inflate to the 12 bytes/);
});

/**
 * A request's contents are stored as one batch payload and read back item by item by the
 * publication; batches stored before the binary form (JSON arrays) must stay readable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createFilePayloadStore, type PayloadStore } from '../../../shared/payloads';
import { batchPayloadReader, encodeBatch, storeBatch } from '../../../shared/payloads/payload-batches';

let folder: string;
let payloads: PayloadStore;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'ks-batches-'));
  payloads = createFilePayloadStore({ folder });
});

afterEach(() => rmSync(folder, { recursive: true, force: true }));

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('payload batches', () => {
  it('given any contents, when stored as a batch, then each reference reads back its own content', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme' }), { minLength: 1, maxLength: 20 }),
        async (contents) => {
          const refs = await storeBatch(payloads, contents);
          const read = batchPayloadReader(payloads);
          expect(await Promise.all(refs.map(async (ref) => text(await read(ref))))).toEqual(contents);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('given contents, when encoded, then the batch is the magic, the count, each UTF-8 length and the items, every byte written, in one buffer', () => {
    const contents = ['kind: ConfigMap\n', '', 'naïve: ✓ \u{1f600}\n', 'lone \ud800'];
    const from = jest.spyOn(Buffer, 'from');
    let batch: Buffer;
    try {
      batch = encodeBatch(contents);
      expect(from).not.toHaveBeenCalled();
    } finally {
      from.mockRestore();
    }
    const items = contents.map((content) => Buffer.from(content, 'utf8'));
    const lengths = Buffer.alloc(4 * (items.length + 1));
    lengths.writeUInt32LE(items.length, 0);
    for (const [index, item] of items.entries()) lengths.writeUInt32LE(item.length, 4 * (index + 1));
    expect(batch.equals(Buffer.concat([Buffer.from('KSB1\n'), lengths, ...items]))).toBe(true);
    expect(Buffer.from(batch.subarray(-8)).toString('utf8')).toBe('lone \ufffd');
  });

  it('given a batch stored as a JSON array, when read, then its items are the array’s strings', async () => {
    const ref = await payloads.put(JSON.stringify(['kind: ConfigMap\n', 'naïve: ✓\n']));
    const read = batchPayloadReader(payloads);
    expect(text(await read(`${ref}#1`))).toBe('naïve: ✓\n');
  });

  it('given a reference past the batch’s end or a batch cut short, when read, then the read fails naming it', async () => {
    const [first] = await storeBatch(payloads, ['a', 'b']);
    const base = first!.slice(0, first!.indexOf('#'));
    await expect(batchPayloadReader(payloads)(`${base}#2`)).rejects.toThrow(`${base}#2`);

    const whole = Buffer.from(await payloads.get(base));
    const cut = await payloads.put(whole.subarray(0, whole.length - 1));
    await expect(batchPayloadReader(payloads)(`${cut}#0`)).rejects.toThrow(
      `payload ${cut} is not a well-formed batch`,
    );
  });
});

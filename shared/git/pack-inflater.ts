import { constants, Inflate, inflateSync } from 'node:zlib';
import { bindingOf } from './zlib-binding';

/** An entry's inflated bytes and how many bytes of the pack its stream took. */
export type Inflated = { data: Buffer; consumed: number };

/**
 * Inflates a pack's entries one after another. Each zlib stream starts at `start` (and ends at or
 * before `end`) of `pack`, and must inflate to exactly `size` bytes and end there, as git's
 * index-pack requires of every entry ("inflate returned", builtin/index-pack.c unpack_entry_data).
 * Throws on a corrupt, truncated or wrongly sized stream.
 */
export type PackInflater = {
  /** The bytes are a view of one output buffer reused for every entry: valid until the next call. */
  inflate(pack: Buffer, start: number, end: number, size: number): Inflated;
  /** The bytes are a buffer of their own, to keep: a large object is never held twice. */
  inflateOwn(pack: Buffer, start: number, end: number, size: number): Inflated;
  close(): void;
  /** Whether one zlib context serves every entry (node's binding as known), else one per entry. */
  readonly reusesContext: boolean;
};

/** deflate's largest ratio of output to input (zlib's FAQ: "the limit is 1032:1"). */
const MAX_DEFLATE_RATIO = 1032;

/**
 * One zlib context reused for every entry of a pack, with `inflateSync` per entry where node's
 * binding is not the one known (`reuse: false` forces that, for its test).
 */
export function createPackInflater({ reuse = true }: { reuse?: boolean } = {}): PackInflater {
  const context = reuse ? reusedContext() : undefined;
  // an output buffer is sized from the header before inflating: a header claiming more than the
  // remaining bytes could ever inflate to is a hostile pack, refused before it allocates
  const checked =
    (inflate: PackInflater['inflate']): PackInflater['inflate'] =>
    (pack, start, end, size) => {
      if (size > MAX_DEFLATE_RATIO * (end - start)) {
        throw new Error(`pack entry declares ${size} bytes, more than its stream can hold`);
      }
      return inflate(pack, start, end, size);
    };
  return {
    inflate: checked(context?.inflate ?? inflateAlone),
    inflateOwn: checked(context?.inflateOwn ?? inflateAlone),
    close: () => context?.close(),
    reusesContext: context !== undefined,
  };
}

const sizeMismatch = (size: number) =>
  new Error(`pack entry does not inflate to the ${size} bytes it declares`);

/** `inflateSync`'s result is a buffer of its own, or a slice of node's pool the base cache copies out. */
const inflateAlone: PackInflater['inflate'] = (pack, start, end, size) => {
  const { buffer, engine } = inflateSync(pack.subarray(start, end), {
    info: true,
    chunkSize: Math.max(64, size),
  }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  if (buffer.length !== size) throw sizeMismatch(size);
  return { data: buffer, consumed: engine.bytesWritten };
};

function reusedContext(): Pick<PackInflater, 'inflate' | 'inflateOwn' | 'close'> | undefined {
  const inflate = new Inflate();
  const binding = bindingOf(inflate);
  if (!binding) {
    inflate.close();
    return undefined;
  }
  const { handle, state } = binding;
  // node's own error handler destroys the stream ("no way to cleanly recover"); the pack is refused
  // on the first error anyway, so the error is only kept and thrown here
  let failure: string | undefined;
  handle.onerror = (message) => {
    failure = message;
  };
  const write = (pack: Buffer, start: number, length: number, out: Buffer, room: number) => {
    handle.writeSync(constants.Z_FINISH, pack, start, length, out, 0, room);
    if (failure !== undefined) {
      inflate.close();
      throw new Error(`pack entry does not inflate: ${failure}`);
    }
    return { outLeft: state[0]!, inLeft: state[1]! };
  };
  // one byte more than the entry declares: room left after the stream ends is what tells it ended
  // (node reports "unexpected end of file" when Z_FINISH leaves output room and the stream open)
  let out = Buffer.allocUnsafeSlow(4096);
  const inflateShared: PackInflater['inflate'] = (pack, start, end, size) => {
    if (out.length < size + 1) out = Buffer.allocUnsafeSlow(Math.max(size + 1, 2 * out.length));
    handle.reset();
    const { outLeft, inLeft } = write(pack, start, end - start, out, size + 1);
    if (size + 1 - outLeft !== size) throw sizeMismatch(size);
    return { data: out.subarray(0, size), consumed: end - start - inLeft };
  };
  return {
    inflate: inflateShared,
    inflateOwn(pack, start, end, size) {
      // an output of no bytes fails in node's binding ("Zlib error"): an empty object is read as a delta's are
      if (size === 0) return { data: Buffer.alloc(0), consumed: inflateShared(pack, start, end, 0).consumed };
      const own = Buffer.allocUnsafeSlow(size);
      handle.reset();
      const first = write(pack, start, end - start, own, size);
      if (first.outLeft !== 0) throw sizeMismatch(size);
      // full to the byte, the stream may still hold its end: one byte of room must stay unused
      const rest = write(pack, end - first.inLeft, first.inLeft, out, 1);
      if (rest.outLeft !== 1) throw sizeMismatch(size);
      return { data: own, consumed: end - start - rest.inLeft };
    },
    close() {
      inflate.close();
    },
  };
}

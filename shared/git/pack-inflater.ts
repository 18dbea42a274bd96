import { types } from 'node:util';
import { constants, Inflate, inflateSync } from 'node:zlib';

/**
 * Inflates a pack's entries one after another. The bytes it returns are a view of one output
 * buffer reused for every entry: valid until the next call, copied by whoever keeps them.
 */
export type PackInflater = {
  /**
   * Inflates the zlib stream starting at `start` (and ending at or before `end`) of `pack`, which
   * must inflate to exactly `size` bytes and end there, as git's index-pack requires of every entry
   * ("inflate returned", builtin/index-pack.c unpack_entry_data). Returns the bytes and how many
   * bytes of the pack the stream took. Throws on a corrupt, truncated or wrongly sized stream.
   */
  inflate(pack: Buffer, start: number, end: number, size: number): { data: Buffer; consumed: number };
  close(): void;
  /** Whether one zlib context serves every entry (node's binding as known), else one per entry. */
  readonly reusesContext: boolean;
};

/**
 * The part of node's zlib binding a reused inflater drives: node's own sync path
 * (processChunkSync in lib/zlib.js, node 20 to 24) calls `_handle.writeSync(flush, in, inOff,
 * inLen, out, outOff, outLen)` and reads what is left of the input and output from `_writeState`.
 * `inflateSync` builds a whole Transform stream and a new zlib context per call, which is a third of
 * a cold fetch's CPU on a pack of 10,000 small entries.
 */
type ZlibBinding = {
  writeSync(
    flush: number,
    input: Buffer,
    inOff: number,
    inLen: number,
    out: Buffer,
    outOff: number,
    outLen: number,
  ): void;
  reset(): void;
  onerror: (message: string, errno: number) => void;
};

function bindingOf(inflate: Inflate): { handle: ZlibBinding; state: Uint32Array } | undefined {
  const internals = inflate as unknown as { _handle?: Partial<ZlibBinding>; _writeState?: unknown };
  const handle = internals._handle;
  const state = internals._writeState;
  if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function') return undefined;
  // util.types, not instanceof: node's arrays come from another realm than a vm context's (jest)
  if (!types.isUint32Array(state) || state.length !== 2) return undefined;
  return { handle: handle as ZlibBinding, state };
}

/** deflate's largest ratio of output to input (zlib's FAQ: "the limit is 1032:1"). */
const MAX_DEFLATE_RATIO = 1032;

/**
 * One zlib context reused for every entry of a pack, with `inflateSync` per entry where node's
 * binding is not the one known (`reuse: false` forces that, for its test).
 */
export function createPackInflater({ reuse = true }: { reuse?: boolean } = {}): PackInflater {
  const inflater = reuse ? reusedContext() : undefined;
  const inflateEntry = inflater?.inflate ?? inflateAlone;
  return {
    inflate(pack, start, end, size) {
      // an output buffer is sized from the header before inflating: a header claiming more than the
      // remaining bytes could ever inflate to is a hostile pack, refused before it allocates
      if (size > MAX_DEFLATE_RATIO * (end - start)) {
        throw new Error(`pack entry declares ${size} bytes, more than its stream can hold`);
      }
      return inflateEntry(pack, start, end, size);
    },
    close: () => inflater?.close(),
    reusesContext: inflater !== undefined,
  };
}

const inflateAlone: PackInflater['inflate'] = (pack, start, end, size) => {
  const { buffer, engine } = inflateSync(pack.subarray(start, end), {
    info: true,
    chunkSize: Math.max(64, size),
  }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  if (buffer.length !== size) throw new Error(`pack entry does not inflate to the ${size} bytes it declares`);
  return { data: buffer, consumed: engine.bytesWritten };
};

function reusedContext(): Pick<PackInflater, 'inflate' | 'close'> | undefined {
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
  // one byte more than the entry declares: room left after the stream ends is what tells it ended
  // (node reports "unexpected end of file" when Z_FINISH leaves output room and the stream open)
  let out = Buffer.allocUnsafeSlow(4096);
  return {
    inflate(pack, start, end, size) {
      if (out.length < size + 1) out = Buffer.allocUnsafeSlow(Math.max(size + 1, 2 * out.length));
      handle.reset();
      handle.writeSync(constants.Z_FINISH, pack, start, end - start, out, 0, size + 1);
      if (failure !== undefined) {
        inflate.close();
        throw new Error(`pack entry does not inflate: ${failure}`);
      }
      const written = size + 1 - state[0]!;
      if (written !== size) throw new Error(`pack entry does not inflate to the ${size} bytes it declares`);
      return { data: out.subarray(0, size), consumed: end - start - state[1]! };
    },
    close() {
      inflate.close();
    },
  };
}

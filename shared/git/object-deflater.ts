import { constants, Deflate, deflateSync } from 'node:zlib';
import { bindingOf } from './zlib-binding';

/** Deflates the objects a publication creates, one after another. */
export type ObjectDeflater = {
  /** The deflated bytes: a view of one output buffer reused for every object, valid until the next call. */
  deflate(data: Buffer): Buffer;
  close(): void;
  /** Whether one zlib context serves every object (node's binding as known), else one per object. */
  readonly reusesContext: boolean;
};

// Level 1, as the store always used: a publication's objects are small YAML files and folders,
// where the faster level loses little. A smaller hash (memLevel 4, 2,048 heads) is what each
// reset clears: the default's 32,768 would be cleared for every object of about a kilobyte.
const OPTIONS = { level: 1, memLevel: 4 } as const;

/**
 * zlib's bound on deflated size for a stream whose window or memory level is not the default
 * (deflate.c, deflateBound: "conservative upper bound"), plus the zlib wrapper's 6 bytes.
 */
const deflateBound = (length: number) => length + ((length + 7) >> 3) + ((length + 63) >> 6) + 5 + 6;

/**
 * One zlib context reset and reused for every object, with `deflateSync` per object where node's
 * binding is not the one known (`reuse: false` forces that, for its test). A publication of 40,000
 * changed files built a Transform stream and a context for each, half the time its deflating took.
 */
export function createObjectDeflater({ reuse = true }: { reuse?: boolean } = {}): ObjectDeflater {
  const stream = reuse ? new Deflate(OPTIONS) : undefined;
  const binding = stream && bindingOf(stream);
  if (!binding) {
    stream?.close();
    return { deflate: (data) => deflateSync(data, OPTIONS), close: () => {}, reusesContext: false };
  }
  const { handle, state } = binding;
  let failure: string | undefined;
  handle.onerror = (message) => {
    failure = message;
  };
  let out = Buffer.allocUnsafeSlow(16 * 1024);
  return {
    deflate(data) {
      const room = deflateBound(data.length);
      if (out.length < room) out = Buffer.allocUnsafeSlow(Math.max(room, 2 * out.length));
      handle.reset();
      handle.writeSync(constants.Z_FINISH, data, 0, data.length, out, 0, room);
      if (failure !== undefined) throw new Error(`an object does not deflate: ${failure}`);
      // within zlib's bound the stream always ends; were it not to, the object is deflated alone
      if (state[1] !== 0 || state[0] === 0) return deflateSync(data, OPTIONS);
      return out.subarray(0, room - state[0]!);
    },
    close: () => stream.close(),
    reusesContext: true,
  };
}

import { types } from 'node:util';
import type { Deflate, Inflate } from 'node:zlib';

/**
 * The part of node's zlib binding a reused zlib context drives: node's own sync path
 * (processChunkSync in lib/zlib.js, node 20 to 24) calls `_handle.writeSync(flush, in, inOff,
 * inLen, out, outOff, outLen)` and reads what is left of the output and the input from
 * `_writeState`. `inflateSync` and `deflateSync` build a whole Transform stream and a new zlib
 * context per call, which costs more than inflating or deflating a small object.
 */
export type ZlibBinding = {
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

/**
 * The binding behind a zlib stream, with its write state (`[output left, input left]`), or
 * undefined where node's internals are not the ones known: the caller then uses the public API.
 */
export function bindingOf(
  stream: Inflate | Deflate,
): { handle: ZlibBinding; state: Uint32Array } | undefined {
  const internals = stream as unknown as { _handle?: Partial<ZlibBinding>; _writeState?: unknown };
  const handle = internals._handle;
  const state = internals._writeState;
  if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function') return undefined;
  // util.types, not instanceof: node's arrays come from another realm than a vm context's (jest)
  if (!types.isUint32Array(state) || state.length !== 2) return undefined;
  return { handle: handle as ZlibBinding, state };
}

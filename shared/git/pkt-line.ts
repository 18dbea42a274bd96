/** One pkt-line: four hex digits of length (itself included), then the payload. */
export function pktLine(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

/** The pkt-lines of `buf`: a payload, or null for a flush (`0000`) or delimiter (`0001`) packet. */
export function* pktLines(buf: Buffer, what = 'Git reply'): Generator<Buffer | null> {
  let i = 0;
  while (i + 4 <= buf.length) {
    const len = Number.parseInt(buf.toString('latin1', i, i + 4), 16);
    if (Number.isNaN(len) || (len > 2 && len < 4)) throw new Error(`malformed ${what}`);
    if (len <= 2) {
      yield null;
      i += 4;
      continue;
    }
    if (i + len > buf.length) throw new Error(`${what} cut short`);
    yield buf.subarray(i + 4, i + len);
    i += len;
  }
}

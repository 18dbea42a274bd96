/** One pkt-line: four hex digits of length (itself included), then the payload. */
export function pktLine(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

/** The pkt-lines of `buf`: a payload, or null for a flush (`0000`) or delimiter (`0001`) packet. */
export function* pktLines(buf: Buffer, what = 'Git reply'): Generator<Buffer | null> {
  const reader = new PktLineReader(what);
  reader.push(buf);
  yield* reader.take();
  reader.end();
}

/**
 * pkt-lines read as their bytes arrive: `push` what came, then `take` the lines complete so far
 * (a payload, or null for a flush or delimiter packet); a line cut across chunks waits for the rest.
 */
export class PktLineReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly what: string) {}

  push(bytes: Uint8Array): void {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
  }

  *take(): Generator<Buffer | null> {
    let i = 0;
    try {
      while (i + 4 <= this.pending.length) {
        const len = Number.parseInt(this.pending.toString('latin1', i, i + 4), 16);
        if (Number.isNaN(len) || (len > 2 && len < 4)) throw new Error(`malformed ${this.what}`);
        if (len <= 2) {
          i += 4;
          yield null;
          continue;
        }
        if (i + len > this.pending.length) break;
        const line = this.pending.subarray(i + 4, i + len);
        i += len;
        yield line;
      }
    } finally {
      this.pending = this.pending.subarray(i);
    }
  }

  /** Throws when the bytes ended inside a line. */
  end(): void {
    if (this.pending.length > 0) throw new Error(`${this.what} cut short`);
  }
}

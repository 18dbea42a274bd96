import { KeyUnreadable } from './key-unreadable';

/** The SSH wire encoding (RFC 4251 §5): `uint32` and length-prefixed `string`/`mpint`. */

export function sshString(bytes: Buffer | string): Buffer {
  const body = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

/** A non-negative `mpint` from big-endian magnitude bytes: no leading zeros, a zero byte when the top bit is set. */
export function sshMpint(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  return sshString(
    trimmed.length > 0 && trimmed[0]! & 0x80 ? Buffer.concat([Buffer.of(0), trimmed]) : trimmed,
  );
}

/** Reads SSH wire fields in order; throws `SshWireTruncated` past the end. */
export class SshWireReader {
  #offset = 0;
  constructor(private readonly bytes: Buffer) {}

  uint32(): number {
    if (this.#offset + 4 > this.bytes.length) throw new SshWireTruncated();
    const value = this.bytes.readUInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }

  string(): Buffer {
    const length = this.uint32();
    if (this.#offset + length > this.bytes.length) throw new SshWireTruncated();
    const value = this.bytes.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    return value;
  }

  text(): string {
    return this.string().toString('utf8');
  }

  /** An `mpint`'s magnitude, big-endian, without the sign byte. */
  mpint(): Buffer {
    const value = this.string();
    return value.length > 0 && value[0] === 0 ? value.subarray(1) : value;
  }

  fixed(length: number): Buffer {
    if (this.#offset + length > this.bytes.length) throw new SshWireTruncated();
    const value = this.bytes.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    return value;
  }
}

export class SshWireTruncated extends KeyUnreadable {
  constructor() {
    super('ends before its fields do');
  }
}

import { KeyUnreadable } from './key-unreadable';
/** The pieces of OpenPGP's wire format kubescribe reads and writes (RFC 9580 §3, §4, §6). */

export type Packet = { tag: number; body: Buffer };

/** The packets of a binary OpenPGP message, old and new header formats (RFC 9580 §4.2). */
export function readPackets(bytes: Buffer): Packet[] {
  const packets: Packet[] = [];
  let at = 0;
  while (at < bytes.length) {
    const first = bytes[at++]!;
    if (!(first & 0x80)) throw new KeyUnreadable('is not an OpenPGP packet sequence');
    let tag: number;
    let length: number;
    if (first & 0x40) {
      tag = first & 0x3f;
      const octet = bytes[at++]!;
      if (octet < 192) length = octet;
      else if (octet < 224) length = ((octet - 192) << 8) + bytes[at++]! + 192;
      else if (octet === 255) {
        length = bytes.readUInt32BE(at);
        at += 4;
      } else throw new KeyUnreadable('uses partial body lengths, which a key export never does');
    } else {
      tag = (first >> 2) & 0x0f;
      const type = first & 0x03;
      if (type === 3) length = bytes.length - at;
      else {
        const size = 1 << type;
        length = bytes.readUIntBE(at, size);
        at += size;
      }
    }
    if (at + length > bytes.length) throw new KeyUnreadable('ends inside a packet');
    packets.push({ tag, body: bytes.subarray(at, at + length) });
    at += length;
  }
  return packets;
}

/** A packet in the new header format. */
export function packet(tag: number, body: Buffer): Buffer {
  const length = body.length;
  const header =
    length < 192
      ? Buffer.of(0xc0 | tag, length)
      : length < 8384
        ? Buffer.of(0xc0 | tag, ((length - 192) >> 8) + 192, (length - 192) & 0xff)
        : Buffer.concat([Buffer.of(0xc0 | tag, 255), uint32(length)]);
  return Buffer.concat([header, body]);
}

export function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/** A multiprecision integer from big-endian magnitude bytes: its bit count, then the bytes (RFC 9580 §3.2). */
export function mpi(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length && magnitude[start] === 0) start++;
  const bytes = magnitude.subarray(start);
  const bits = bytes.length === 0 ? 0 : (bytes.length - 1) * 8 + (32 - Math.clz32(bytes[0]!));
  return Buffer.concat([Buffer.of(bits >> 8, bits & 0xff), bytes]);
}

/** Reads the fields of a packet body in order. */
export class PacketReader {
  offset = 0;
  constructor(private readonly body: Buffer) {}

  octet(): number {
    if (this.offset >= this.body.length) throw new KeyUnreadable('ends inside a key packet');
    return this.body[this.offset++]!;
  }

  bytes(length: number): Buffer {
    if (this.offset + length > this.body.length) throw new KeyUnreadable('ends inside a key packet');
    const value = this.body.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  mpi(): Buffer {
    const bits = (this.octet() << 8) | this.octet();
    return this.bytes(Math.ceil(bits / 8));
  }
}

/** CRC-24 of RFC 9580 §6.1, the armor's checksum. */
function crc24(bytes: Buffer): number {
  let crc = 0xb704ce;
  for (const byte of bytes) {
    crc ^= byte << 16;
    for (let bit = 0; bit < 8; bit++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** ASCII armor (RFC 9580 §6.2) around binary packets. */
export function armor(kind: string, bytes: Buffer): string {
  const lines = bytes.toString('base64').match(/.{1,64}/g) ?? [];
  const checksum = Buffer.from(uint32(crc24(bytes)).subarray(1)).toString('base64');
  return `-----BEGIN PGP ${kind}-----\n\n${lines.join('\n')}\n=${checksum}\n-----END PGP ${kind}-----\n`;
}

/** The binary packets inside an armored block of `kind`, or undefined when `text` holds none. */
export function dearmor(kind: string, text: string): Buffer | undefined {
  const block = new RegExp(`-----BEGIN PGP ${kind}-----\\r?\\n([\\s\\S]*?)-----END PGP ${kind}-----`).exec(
    text,
  );
  if (!block) return undefined;
  // armor headers (`Comment: …`) end at the first blank line; the checksum line starts with '='
  const [, body = ''] = /^(?:[^\r\n]+\r?\n)*?\r?\n([\s\S]*)$/.exec(block[1]!) ?? [];
  const base64 = body
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('='))
    .join('');
  return Buffer.from(base64, 'base64');
}

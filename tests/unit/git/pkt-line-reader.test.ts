import { PktLineReader, pktLine } from '../../../shared/git/pkt-line';

const taken = (reader: PktLineReader) => [...reader.take()].map((line) => line?.toString('latin1') ?? null);

describe('pkt-lines read as their bytes arrive', () => {
  it('gives each line once it is whole, whatever the chunks it came in', () => {
    const bytes = Buffer.concat([
      pktLine('unpack ok\n'),
      pktLine('ok refs/heads/main\n'),
      Buffer.from('0000'),
    ]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const reader = new PktLineReader('push report');
      reader.push(bytes.subarray(0, cut));
      const first = taken(reader);
      reader.push(bytes.subarray(cut));
      expect([...first, ...taken(reader)]).toEqual(['unpack ok\n', 'ok refs/heads/main\n', null]);
      reader.end();
    }
  });

  it('keeps what follows a line the reader stopped at for the next take', () => {
    const reader = new PktLineReader('reply');
    reader.push(Buffer.concat([pktLine('a'), Buffer.from('0000'), pktLine('b')]));
    for (const line of reader.take()) if (line === null) break;
    expect(taken(reader)).toEqual(['b']);
  });

  it('refuses a length that is not one, and bytes that end inside a line', () => {
    const malformed = new PktLineReader('receive-pack reply');
    malformed.push(Buffer.from('zz12abc'));
    expect(() => taken(malformed)).toThrow('malformed receive-pack reply');
    const short = new PktLineReader('receive-pack reply');
    short.push(pktLine('unpack ok\n').subarray(0, 7));
    expect(taken(short)).toEqual([]);
    expect(() => short.end()).toThrow('receive-pack reply cut short');
  });
});

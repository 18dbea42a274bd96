import type { HttpClient } from 'isomorphic-git';
import type { PackPieces } from './encode-pack';
import type { HttpRefusal } from './errors';
import { classifyHttpStatus, readBody } from './http-status';
import { isLostRaceText } from './lost-race-texts';
import { pktLine, pktLines } from './pkt-line';

export type ReceivePackOutcome =
  | { kind: 'ok' }
  | { kind: 'moved'; cause: string }
  | { kind: 'rejected'; cause: string }
  | ({ kind: 'httpStatus' } & HttpRefusal);

const ZERO = '0'.repeat(40);

/**
 * One receive-pack POST updating `ref` from `oldOid` (null: the branch must not exist) to `newOid`,
 * carrying `pack`. The server applies it only if the ref is still at `oldOid`: a compare-and-swap
 * against the head we built on, with no ref discovery and no history walk. Network errors are thrown
 * (the caller must treat them as "maybe landed"); every answer from the server is data.
 */
export async function sendReceivePack({
  http,
  url,
  ref,
  oldOid,
  newOid,
  pack,
  packBytes,
  now = Date.now,
}: {
  now?: () => number;
  http: HttpClient;
  url: string;
  ref: string;
  oldOid: string | null;
  newOid: string;
  pack: PackPieces;
  /** The pack's length: declared, so its pieces go out as they are framed (bounded-http.ts). */
  packBytes: number;
}): Promise<ReceivePackOutcome> {
  // no agent= capability: some hosts reject capabilities they did not advertise
  const commands = Buffer.concat([
    pktLine(`${oldOid ?? ZERO} ${newOid} ${ref}\0report-status side-band-64k\n`),
    Buffer.from('0000'),
  ]);
  const res = await http.request({
    url: `${url}/git-receive-pack`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-git-receive-pack-request',
      accept: 'application/x-git-receive-pack-result',
      'content-length': String(commands.length + packBytes),
    },
    body: (async function* () {
      yield commands;
      yield* pack;
    })(),
  });
  const raw = await readBody(res);
  if (res.statusCode !== 200) {
    return {
      kind: 'httpStatus',
      ...classifyHttpStatus({
        status: res.statusCode,
        statusMessage: res.statusMessage,
        headers: res.headers ?? {},
        body: raw,
        now: now(),
      }),
    };
  }
  const report: Buffer[] = [];
  let messages = '';
  let fatal = '';
  for (const line of pktLines(raw, 'receive-pack reply')) {
    if (line === null) continue;
    if (line[0] === 1) report.push(line.subarray(1));
    else if (line[0] === 2) messages += line.subarray(1).toString('utf8');
    else if (line[0] === 3) fatal += line.subarray(1).toString('utf8');
  }
  const remoteSaid = messages.trim().replace(/\s+/g, ' ');
  if (fatal)
    return isLostRaceText(fatal)
      ? { kind: 'moved', cause: fatal.trim() }
      : { kind: 'rejected', cause: fatal.trim() };
  let unpack = '';
  let refError: string | null = null;
  let refOk = false;
  for (const line of pktLines(Buffer.concat(report), 'push report')) {
    if (line === null) continue;
    const text = line.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('unpack ')) unpack = text.slice(7);
    else if (text === `ok ${ref}`) refOk = true;
    else if (text.startsWith(`ng ${ref} `)) refError = text.slice(ref.length + 4);
  }
  if (unpack === 'ok' && refOk) return { kind: 'ok' };
  const why =
    refError ?? (unpack && unpack !== 'ok' ? `unpack failed: ${unpack}` : 'no report from the server');
  if (isLostRaceText(why)) return { kind: 'moved', cause: why };
  return { kind: 'rejected', cause: remoteSaid ? `${why}: ${remoteSaid}` : why };
}

import type { GitHttpResponse, HttpClient } from 'isomorphic-git';
import type { PackPieces } from './encode-pack';
import type { HttpRefusal } from './errors';
import { classifyHttpStatus, readBody } from './http-status';
import { isLostRaceText } from './lost-race-texts';
import { PktLineReader, pktLine } from './pkt-line';

export type ReceivePackOutcome =
  | { kind: 'ok' }
  | { kind: 'moved'; cause: string }
  | { kind: 'rejected'; cause: string }
  | ({ kind: 'httpStatus' } & HttpRefusal);

const ZERO = '0'.repeat(40);

/** What one push asks of the server, and the pack carrying what it needs. */
export type PushUpdate = {
  /** Where the ref must still be (null: the branch must not exist yet). */
  oldOid: string | null;
  newOid: string;
  pack: PackPieces;
  /** The pack's length: declared, so its pieces go out as they are framed (bounded-http.ts). */
  packBytes: number;
};

/**
 * One receive-pack POST updating `ref` from `update.oldOid` to `update.newOid`, carrying its pack.
 * The server applies it only if the ref is still at `oldOid`: a compare-and-swap against the head we
 * built on, with no ref discovery and no history walk. An update still being built (a promise) is
 * sent chunked, the request opened now: the server starts receive-pack while the commits are built,
 * and a promise that rejects cuts the request off before any command (nothing is applied). Network
 * errors are thrown (the caller must treat them as "maybe landed"); every answer from the server is
 * data.
 */
export async function sendReceivePack({
  http,
  url,
  ref,
  update,
  now = Date.now,
  readTail,
}: {
  now?: () => number;
  /**
   * Takes the rest of the answer to a push the server's report accepted, to read after the push
   * returns (and so give the connection back); without it the whole answer is read first.
   */
  readTail?: (rest: AsyncIterator<Uint8Array>) => void;
  http: HttpClient;
  url: string;
  ref: string;
  update: PushUpdate | Promise<PushUpdate>;
}): Promise<ReceivePackOutcome> {
  // no agent= capability: some hosts reject capabilities they did not advertise
  const commandsOf = ({ oldOid, newOid }: PushUpdate) =>
    Buffer.concat([
      pktLine(`${oldOid ?? ZERO} ${newOid} ${ref}\0report-status side-band-64k\n`),
      Buffer.from('0000'),
    ]);
  const length: Record<string, string> =
    update instanceof Promise
      ? { 'transfer-encoding': 'chunked' }
      : { 'content-length': String(commandsOf(update).length + update.packBytes) };
  const res = await http.request({
    url: `${url}/git-receive-pack`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-git-receive-pack-request',
      accept: 'application/x-git-receive-pack-result',
      ...length,
    },
    body: (async function* () {
      const built = await update;
      yield commandsOf(built);
      yield* built.pack;
    })(),
  });
  if (res.statusCode !== 200) {
    const raw = await readBody(res);
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
  const answer = await readAnswer(res, ref, readTail);
  const remoteSaid = answer.messages.trim().replace(/\s+/g, ' ');
  if (answer.fatal)
    return isLostRaceText(answer.fatal)
      ? { kind: 'moved', cause: answer.fatal.trim() }
      : { kind: 'rejected', cause: answer.fatal.trim() };
  const { unpack, refOk, refError } = answer.report;
  if (unpack === 'ok' && refOk) return { kind: 'ok' };
  const why =
    refError ?? (unpack && unpack !== 'ok' ? `unpack failed: ${unpack}` : 'no report from the server');
  if (isLostRaceText(why)) return { kind: 'moved', cause: why };
  return { kind: 'rejected', cause: remoteSaid ? `${why}: ${remoteSaid}` : why };
}

/** What the report-status lines say of the one ref pushed. */
type Report = { unpack: string; refOk: boolean; refError: string | null };

/**
 * Reads receive-pack's answer as it arrives: the report (band 1, itself pkt-lines ending with a
 * flush), the server's messages (band 2) and a fatal error (band 3). A report that accepts the push
 * settles it, since receive-pack reports after updating the ref: what the server sends after that
 * (a post-receive hook's output, its `gc --auto`, then the final flush: about 2 ms of a 23 ms push
 * here, a hook's run on a host that has one) is handed to `readTail` instead of waited for. Any
 * other answer is read to its end, for the messages that explain it.
 */
async function readAnswer(
  res: GitHttpResponse,
  ref: string,
  readTail: ((rest: AsyncIterator<Uint8Array>) => void) | undefined,
): Promise<{ report: Report; messages: string; fatal: string }> {
  const report: Report = { unpack: '', refOk: false, refError: null };
  let messages = '';
  let fatal = '';
  let reportWhole = false;
  const outer = new PktLineReader('receive-pack reply');
  const inner = new PktLineReader('push report');
  const body = res.body?.[Symbol.asyncIterator]();
  for (let next = await body?.next(); next && !next.done; next = await body!.next()) {
    outer.push(next.value);
    for (const line of outer.take()) {
      if (line === null) continue;
      if (line[0] === 2) messages += line.toString('utf8', 1);
      else if (line[0] === 3) fatal += line.toString('utf8', 1);
      else if (line[0] === 1 && !reportWhole) {
        inner.push(line.subarray(1));
        for (const entry of inner.take()) {
          if (entry === null) {
            reportWhole = true;
            break;
          }
          const text = entry.toString('utf8').replace(/\n$/, '');
          if (text.startsWith('unpack ')) report.unpack = text.slice(7);
          else if (text === `ok ${ref}`) report.refOk = true;
          else if (text.startsWith(`ng ${ref} `)) report.refError = text.slice(ref.length + 4);
        }
      }
    }
    if (readTail && reportWhole && !fatal && report.unpack === 'ok' && report.refOk) {
      readTail(body!);
      return { report, messages, fatal };
    }
  }
  outer.end();
  return { report, messages, fatal };
}

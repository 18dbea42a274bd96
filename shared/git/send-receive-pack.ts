import type { HttpClient } from 'isomorphic-git';

export type ReceivePackOutcome =
  | { kind: 'ok' }
  | { kind: 'moved'; cause: string }
  | { kind: 'rejected'; cause: string }
  | { kind: 'httpStatus'; status: number; cause: string };

const ZERO = '0'.repeat(40);
const MOVED =
  /fetch first|non-fast-forward|failed to update ref|cannot lock ref|stale info|failed to lock|already exists/i;

function pktLine(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

function* pktLines(buf: Buffer): Generator<Buffer | null> {
  let i = 0;
  while (i + 4 <= buf.length) {
    const len = Number.parseInt(buf.subarray(i, i + 4).toString('latin1'), 16);
    if (Number.isNaN(len)) throw new Error('malformed receive-pack reply');
    if (len === 0) {
      yield null;
      i += 4;
      continue;
    }
    yield buf.subarray(i + 4, i + len);
    i += len;
  }
}

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
}: {
  http: HttpClient;
  url: string;
  ref: string;
  oldOid: string | null;
  newOid: string;
  pack: Buffer;
}): Promise<ReceivePackOutcome> {
  // no agent= capability: some hosts reject capabilities they did not advertise
  const command = pktLine(`${oldOid ?? ZERO} ${newOid} ${ref}\0report-status side-band-64k\n`);
  const res = await http.request({
    url: `${url}/git-receive-pack`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-git-receive-pack-request',
      accept: 'application/x-git-receive-pack-result',
    },
    body: (async function* () {
      yield Buffer.concat([command, Buffer.from('0000')]);
      yield pack;
    })(),
  });
  const chunks: Buffer[] = [];
  if (res.body) for await (const chunk of res.body) chunks.push(Buffer.from(chunk));
  const raw = Buffer.concat(chunks);
  if (res.statusCode !== 200) {
    return {
      kind: 'httpStatus',
      status: res.statusCode,
      cause: `HTTP ${res.statusCode} ${res.statusMessage}`.trim(),
    };
  }
  const report: Buffer[] = [];
  let messages = '';
  let fatal = '';
  for (const line of pktLines(raw)) {
    if (line === null) continue;
    if (line[0] === 1) report.push(line.subarray(1));
    else if (line[0] === 2) messages += line.subarray(1).toString('utf8');
    else if (line[0] === 3) fatal += line.subarray(1).toString('utf8');
  }
  const remoteSaid = messages.trim().replace(/\s+/g, ' ');
  if (fatal) return { kind: 'rejected', cause: fatal.trim() };
  let unpack = '';
  let refError: string | null = null;
  let refOk = false;
  for (const line of pktLines(Buffer.concat(report))) {
    if (line === null) continue;
    const text = line.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('unpack ')) unpack = text.slice(7);
    else if (text === `ok ${ref}`) refOk = true;
    else if (text.startsWith(`ng ${ref} `)) refError = text.slice(ref.length + 4);
  }
  if (unpack === 'ok' && refOk) return { kind: 'ok' };
  if (refError && MOVED.test(refError)) return { kind: 'moved', cause: refError };
  const why =
    refError ?? (unpack && unpack !== 'ok' ? `unpack failed: ${unpack}` : 'no report from the server');
  return { kind: 'rejected', cause: remoteSaid ? `${why}: ${remoteSaid}` : why };
}

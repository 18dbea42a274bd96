import type { HttpClient } from 'isomorphic-git';
import { GitTipMoved } from './errors';
import { readBody, refuseUnlessOk } from './http-status';
import { pktLine, pktLines } from './pkt-line';

/**
 * One stateless upload-pack POST (protocol v0, understood by every smart-HTTP host) asking for
 * `want` with history cut at `depth`, telling the server what we `have`; returns the pack bytes
 * (side-band demultiplexed). No ref discovery: the caller already knows the tip from its listing.
 *
 * It negotiates with `multi_ack_detailed`, as git does: Azure Repos refuses (400 TF401041) a fetch
 * that asks for neither `multi_ack` nor `multi_ack_detailed`. The reply is then the shallow lines,
 * `ACK <oid> common|ready` for haves the server shares, and, because the request ends with `done`,
 * one final `ACK <oid>` or `NAK` before the pack.
 * A refused HTTP exchange is thrown as GitHttpRefused; a tip the server no longer serves is GitTipMoved.
 */
export async function fetchPack({
  http,
  url,
  want,
  haves,
  depth,
  now = Date.now,
}: {
  http: HttpClient;
  url: string;
  want: string;
  haves: string[];
  depth: number;
  now?: () => number;
}): Promise<{ pack: Buffer }> {
  const request = [
    pktLine(`want ${want} multi_ack_detailed side-band-64k ofs-delta shallow no-progress\n`),
    pktLine(`deepen ${depth}\n`),
    Buffer.from('0000'),
    ...haves.map((oid) => pktLine(`have ${oid}\n`)),
    pktLine('done\n'),
  ];
  const res = await http.request({
    url: `${url}/git-upload-pack`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-git-upload-pack-request',
      accept: 'application/x-git-upload-pack-result',
    },
    body: (async function* () {
      yield Buffer.concat(request);
    })(),
  });
  const raw = await readBody(res);
  refuseUnlessOk(res, raw, now());
  const pack: Buffer[] = [];
  let negotiated = false;
  for (const line of pktLines(raw, 'upload-pack reply')) {
    if (line === null) continue;
    if (!negotiated) {
      const text = line.toString('utf8').trimEnd();
      // shallow/unshallow lines and `ACK <oid> common|ready|continue` come before the final ACK/NAK;
      // history below the shallow boundary is never read, so none of them changes what we do
      if (text === 'NAK' || /^ACK [0-9a-f]{40,64}$/.test(text)) negotiated = true;
      else if (text.startsWith('ERR ')) {
        // servers that serve only branch tips refuse a tip that moved since our listing
        if (/not our ref/.test(text)) throw new GitTipMoved({ tip: want });
        throw new Error(`the remote refused the fetch: ${text.slice(4)}`);
      }
      continue;
    }
    if (line[0] === 1) pack.push(line.subarray(1));
    else if (line[0] === 3)
      throw new Error(`the remote failed the fetch: ${line.subarray(1).toString('utf8').trim()}`);
  }
  return { pack: Buffer.concat(pack) };
}

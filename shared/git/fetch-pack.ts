import type { HttpClient } from 'isomorphic-git';
import * as git from 'isomorphic-git';
import { GitTipMoved } from './errors';

function pktLine(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
}

/**
 * One stateless upload-pack POST (protocol v0, understood by every smart-HTTP host) asking for
 * `want` with history cut at `depth`, telling the server what we `have`; returns the pack bytes
 * (side-band demultiplexed). No ref discovery: the
 * caller already knows the tip from its ls-refs. HTTP errors are thrown as isomorphic-git's
 * HttpError so they classify like every other call; a tip the server no longer serves is GitTipMoved.
 */
export async function fetchPack({
  http,
  url,
  want,
  haves,
  depth,
}: {
  http: HttpClient;
  url: string;
  want: string;
  haves: string[];
  depth: number;
}): Promise<{ pack: Buffer }> {
  const request = [
    pktLine(`want ${want} side-band-64k ofs-delta shallow no-progress\n`),
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
  const chunks: Buffer[] = [];
  if (res.body) for await (const chunk of res.body) chunks.push(Buffer.from(chunk));
  if (res.statusCode !== 200) {
    throw new git.Errors.HttpError(
      res.statusCode,
      res.statusMessage,
      Buffer.concat(chunks).toString('utf8').slice(0, 300),
    );
  }
  const raw = Buffer.concat(chunks);
  const pack: Buffer[] = [];
  let i = 0;
  let acknowledged = false;
  while (i + 4 <= raw.length) {
    const len = Number.parseInt(raw.toString('latin1', i, i + 4), 16);
    if (Number.isNaN(len)) throw new Error('malformed upload-pack reply');
    if (len === 0) {
      i += 4;
      continue;
    }
    if (i + len > raw.length) throw new Error('upload-pack reply cut short');
    const line = raw.subarray(i + 4, i + len);
    i += len;
    if (!acknowledged) {
      const text = line.toString('utf8').trimEnd();
      // shallow/unshallow lines come first: history below the boundary is never read, so they are skipped
      if (text === 'NAK' || text.startsWith('ACK ')) acknowledged = true;
      else if (text.startsWith('ERR ')) {
        // servers that serve only branch tips refuse a tip that moved since our ls-refs
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

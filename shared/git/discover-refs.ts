import { boundedHttp } from './bounded-http';
import { GitHttpRefused } from './errors';
import { classifyHttpStatus, readBody, refuseUnlessOk } from './http-status';
import { pktLine, pktLines } from './pkt-line';
import type { Advertisement } from './remote-session';

const SUFFIX = '/info/refs?service=git-upload-pack';
const MAX_REDIRECTS = 5;

/** Where the repository was found, whether the credentials may still be sent there, and its branches. */
export type Discovery = Advertisement & { url: string; credentialsKept: boolean };

function refuse(cause: string): GitHttpRefused {
  return new GitHttpRefused({ outcome: 'rejected', status: 200, cause });
}

function checkObjectFormat(capabilities: string[]): void {
  const format = capabilities.find((c) => c.startsWith('object-format='))?.slice(14);
  if (format && format !== 'sha1') {
    throw refuse(`the repository uses ${format} object names; kubescribe supports SHA-1 repositories only`);
  }
}

/**
 * The ref listing, as git does it: GET info/refs (following redirects for this first request only,
 * as `http.followRedirects=initial` does; a GitLab URL without `.git` is redirected), asking for
 * protocol v2. When the server speaks v2, one ls-refs POST lists only `HEAD` and `refs/heads/` (no
 * `refs/pull/*` or tags); a server that does not (Azure Repos drops the `Git-Protocol` header)
 * answers the v0 advertisement, read as it is. Credentials are dropped when a redirect leaves the
 * origin, and an https URL is never followed to http. A SHA-256 repository is refused.
 */
export async function discoverRefs({
  url,
  headers,
  signal,
  now,
}: {
  url: string;
  headers: Record<string, string>;
  signal: AbortSignal;
  now: () => number;
}): Promise<Discovery> {
  let base = url;
  let auth = headers;
  let res = await boundedHttp({ signal, headers: auth }).request({
    url: `${base}${SUFFIX}`,
    method: 'GET',
    headers: { 'git-protocol': 'version=2' },
  });
  for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && res.headers?.location; hops++) {
    await readBody(res);
    const from = new URL(`${base}${SUFFIX}`);
    const to = new URL(res.headers?.location ?? '', from);
    const refused = classifyHttpStatus({ status: res.statusCode, headers: res.headers ?? {} });
    if (hops >= MAX_REDIRECTS)
      throw new GitHttpRefused({ ...refused, cause: `${refused.cause} (too many redirects)` });
    if (from.protocol === 'https:' && to.protocol !== 'https:') {
      throw new GitHttpRefused({
        ...refused,
        cause: `${refused.cause} (https to ${to.protocol} is never followed)`,
      });
    }
    const target = to.toString();
    if (!target.endsWith(SUFFIX)) throw new GitHttpRefused(refused);
    if (to.origin !== from.origin) auth = {};
    base = target.slice(0, -SUFFIX.length);
    res = await boundedHttp({ signal, headers: auth }).request({
      url: target,
      method: 'GET',
      headers: { 'git-protocol': 'version=2' },
    });
  }
  const body = await readBody(res);
  refuseUnlessOk(res, body, now());
  if (!/^application\/x-git-upload-pack-advertisement/.test(res.headers?.['content-type'] ?? '')) {
    throw refuse('the remote does not speak the smart HTTP Git protocol');
  }
  // v0 opens with `# service=git-upload-pack` and a flush; a v2 answer starts at `version 2`
  const rest = [...pktLines(body, 'ref advertisement')].filter(
    (line): line is Buffer => line !== null && !line.toString('utf8').startsWith('# service='),
  );
  const first = rest[0]?.toString('utf8').trimEnd();
  const credentialsKept = auth === headers;
  const found =
    first === 'version 2'
      ? await listRefsV2({ base, auth, signal, now, capabilities: rest.slice(1) })
      : readV0Advertisement(first === 'version 1' ? rest.slice(1) : rest);
  return { ...found, url: base, credentialsKept };
}

function readV0Advertisement(lines: Buffer[]): Advertisement {
  const heads = new Map<string, string>();
  let defaultBranch: string | null = null;
  let any = false;
  lines.forEach((line, i) => {
    const text = line.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('ERR ')) throw refuse(`the remote refused the listing: ${text.slice(4)}`);
    const [refPart, caps] = text.split('\0');
    if (i === 0 && caps !== undefined) {
      const capabilities = caps.split(' ');
      checkObjectFormat(capabilities);
      const symref = capabilities.find((c) => c.startsWith('symref=HEAD:refs/heads/'));
      if (symref) defaultBranch = symref.slice('symref=HEAD:refs/heads/'.length);
    }
    const [oid, ref] = (refPart ?? '').split(' ');
    if (!oid || !ref || ref === 'capabilities^{}') return;
    any = true;
    if (ref.startsWith('refs/heads/')) heads.set(ref.slice(11), oid);
  });
  return { heads, defaultBranch, empty: !any };
}

async function listRefsV2({
  base,
  auth,
  signal,
  now,
  capabilities,
}: {
  base: string;
  auth: Record<string, string>;
  signal: AbortSignal;
  now: () => number;
  capabilities: Buffer[];
}): Promise<Advertisement> {
  checkObjectFormat(capabilities.map((c) => c.toString('utf8').trimEnd()));
  const res = await boundedHttp({ signal, headers: auth }).request({
    url: `${base}/git-upload-pack`,
    method: 'POST',
    headers: {
      'content-type': 'application/x-git-upload-pack-request',
      accept: 'application/x-git-upload-pack-result',
      'git-protocol': 'version=2',
    },
    body: (async function* () {
      yield Buffer.concat([
        pktLine('command=ls-refs\n'),
        Buffer.from('0001'),
        pktLine('symrefs\n'),
        pktLine('ref-prefix HEAD\n'),
        pktLine('ref-prefix refs/heads/\n'),
        Buffer.from('0000'),
      ]);
    })(),
  });
  const body = await readBody(res);
  refuseUnlessOk(res, body, now());
  const heads = new Map<string, string>();
  let defaultBranch: string | null = null;
  let any = false;
  for (const line of pktLines(body, 'ls-refs reply')) {
    if (line === null) continue;
    const text = line.toString('utf8').replace(/\n$/, '');
    if (text.startsWith('ERR ')) throw refuse(`the remote refused the listing: ${text.slice(4)}`);
    const [oid, ref, ...attributes] = text.split(' ');
    if (!oid || !ref) continue;
    if (oid !== 'unborn') any = true;
    if (ref.startsWith('refs/heads/')) heads.set(ref.slice(11), oid);
    const target = attributes.find((a) => a.startsWith('symref-target:refs/heads/'));
    if (ref === 'HEAD' && target) defaultBranch = target.slice('symref-target:refs/heads/'.length);
  }
  return { heads, defaultBranch, empty: !any };
}

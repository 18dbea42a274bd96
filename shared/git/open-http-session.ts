import * as fs from 'node:fs';
import * as git from 'isomorphic-git';
import { boundStep } from './bound-step';
import { boundedHttp } from './bounded-http';
import { compactObjectCache } from './compact-object-cache';
import { discoverRefs } from './discover-refs';
import { encodePack } from './encode-pack';
import { fetchPack } from './fetch-pack';
import { indexPack } from './index-pack';
import { installPack } from './install-pack';
import { openObjectCache } from './open-object-cache';
import { readLocalRef } from './read-local-ref';
import type { RemoteSession } from './remote-session';
import { sendReceivePack } from './send-receive-pack';
import type { Clock, GitRemote } from './types';
import { updateLocalRef } from './update-local-ref';

function authHeaders(remote: Extract<GitRemote, { kind: 'http' }>): Record<string, string> {
  if (!remote.auth) return {};
  if ('bearer' in remote.auth) return { authorization: `Bearer ${remote.auth.bearer}` };
  const basic = Buffer.from(`${remote.auth.username}:${remote.auth.token}`).toString('base64');
  return { authorization: `Basic ${basic}` };
}

/**
 * A smart-HTTP remote with a per-branch object cache under `cacheDir`: ref discovery
 * (`discover-refs.ts`: redirects followed there, then its URL used for every POST), a shallow fetch (depth `historyDepth`, one upload-pack POST, indexed natively)
 * only when the tip is not cached, and a raw compare-and-swap receive-pack push of one pack.
 * Each call runs under its own `callTimeoutMs`.
 */
export function openHttpSession({
  remote,
  branch,
  cacheDir,
  clock,
  callTimeoutMs,
  signal,
  historyDepth = 50,
}: {
  remote: Extract<GitRemote, { kind: 'http' }>;
  branch: string;
  cacheDir?: string;
  clock: Clock;
  callTimeoutMs: number;
  signal?: AbortSignal;
  historyDepth?: number;
}): RemoteSession {
  // where the repository answers and what may be sent there: a redirected discovery changes both
  let headers = authHeaders(remote);
  let base = remote.url;
  let discovered = false;
  const url = remote.url;
  let opened: Promise<string> | undefined;
  const gitdir = () => {
    if (!cacheDir) throw new Error('this operation needs a cache folder');
    opened ??= openObjectCache({ cacheDir, key: `${url}\n${branch}`, url });
    return opened;
  };
  const bounded = <T>(step: 'advertise' | 'probe' | 'fetch' | 'push', run: (s: AbortSignal) => Promise<T>) =>
    boundStep({ step, ms: callTimeoutMs, clock, ...(signal ? { signal } : {}), run });
  const readable = async (dir: string, oid: string) =>
    git.readCommit({ fs, gitdir: dir, oid }).then(
      () => true,
      () => false,
    );
  const pin = async (dir: string, name: string, oid: string) => {
    const ref = `refs/heads/${name}`;
    const current = await readLocalRef({ gitdir: dir, ref });
    if (current !== oid) await updateLocalRef({ gitdir: dir, ref, oldOid: current, newOid: oid, clock });
  };
  const fetchInto = async (dir: string, name: string, tip: string) => {
    const known = await readLocalRef({ gitdir: dir, ref: `refs/heads/${name}` });
    const { pack } = await bounded('fetch', async (s) =>
      fetchPack({
        http: boundedHttp({ signal: s, headers }),
        url: base,
        want: tip,
        now: () => clock.now(),
        haves: known ? [known] : [],
        depth: historyDepth,
      }),
    );
    if (pack.length > 0) await installPack({ gitdir: dir, pack, ...indexPack({ pack }) });
    return tip;
  };
  const advertise: RemoteSession['advertise'] = async ({ step }) => {
    const found = await bounded(step === 'probe' ? 'probe' : 'advertise', (s) =>
      discoverRefs({ url, headers: authHeaders(remote), signal: s, now: () => clock.now() }),
    );
    base = found.url;
    headers = found.headers;
    discovered = true;
    return { heads: found.heads, defaultBranch: found.defaultBranch, empty: found.empty };
  };

  return {
    gitdir,
    async knownTip({ branch: name }) {
      if (!cacheDir) return null;
      return readLocalRef({ gitdir: await gitdir(), ref: `refs/heads/${name}` });
    },
    advertise,
    async obtain({ branch: name, tip }) {
      let dir = await gitdir();
      if (await readable(dir, tip)) {
        await pin(dir, name, tip);
        return { gitdir: dir, tip };
      }
      await fetchInto(dir, name, tip);
      if (!(await readable(dir, tip))) {
        // the cache holds something unusable (e.g. left by a killed run): start it again, cold
        opened = openObjectCache({ cacheDir: cacheDir!, key: `${url}\n${branch}`, url, fresh: true });
        dir = await opened;
        await fetchInto(dir, name, tip);
      }
      // refs/heads/<name> is what the next fetch offers as "have": keep it at the fetched tip, or
      // every later fetch downloads the whole history again
      await pin(dir, name, tip);
      return { gitdir: dir, tip };
    },
    async push({ branch: name, oldOid, newOid, store }) {
      const { pack } = await encodePack({ store });
      const send = () =>
        bounded('push', (s) =>
          sendReceivePack({
            http: boundedHttp({ signal: s, headers }),
            url: base,
            ref: `refs/heads/${name}`,
            oldOid,
            newOid,
            pack,
            now: () => clock.now(),
          }),
        );
      let outcome = await send();
      if (outcome.kind === 'httpStatus' && !discovered && (outcome.status === 404 || outcome.status < 400)) {
        // a push guessed from the cache went to the configured URL, which may redirect (GitLab without
        // `.git`): that POST was not applied, so find where the repository answers and send it there
        const before = base;
        await advertise({ step: 'probe' });
        if (base !== before) outcome = await send();
      }
      if (outcome.kind === 'ok') {
        const dir = await gitdir();
        // the cache keeps our commits and trees, not our blobs: later builds read trees only, and
        // offering this tip as a "have" tells the server not to send them back
        const kept = await encodePack({ store, types: ['commit', 'tree'] });
        await installPack({ gitdir: dir, ...kept });
        await pin(dir, name, newOid);
        await compactObjectCache({ gitdir: dir });
      }
      return outcome;
    },
  };
}

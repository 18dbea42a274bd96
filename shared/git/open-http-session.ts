import { boundStep } from './bound-step';
import { boundedHttp, readTailWithin } from './bounded-http';
import { readCheckedCommit } from './checked-objects';
import { compactAfterPublication } from './compact-object-cache';
import { authorizationHeader, fixedCredentials, type GitCredentials, sameAuth } from './credentials';
import { discoverRefs } from './discover-refs';
import { encodePack } from './encode-pack';
import { GitHttpRefused } from './errors';
import { fetchPack } from './fetch-pack';
import { indexPack } from './index-pack';
import { installPack, withdrawPack } from './install-pack';
import { forgetReadCache, keptReadCache } from './kept-read-cache';
import { isKnownObject, keepFetchedObjects, keepPushedCommit } from './known-objects';
import { objectCacheExists, openObjectCache } from './open-object-cache';
import { readLocalRef } from './read-local-ref';
import type { PushArgs, RemoteSession } from './remote-session';
import { type PushUpdate, type ReceivePackOutcome, sendReceivePack } from './send-receive-pack';
import type { Clock, GitAuth, GitRemote } from './types';
import { updateLocalRef } from './update-local-ref';

const refusedCredentials = (error: unknown) =>
  error instanceof GitHttpRefused && error.data.outcome === 'authFailed';

/**
 * What is still being read of the answer to each remote branch's last push (what the server sends
 * after its report: `sendReceivePack`), by remote branch: its next push waits for it, and so goes
 * out on the connection that answer gives back instead of opening one (on a real host, a TLS
 * handshake).
 */
const tails = new Map<string, Promise<void>>();

/** Resolves once every push answer still being read has ended (what a measure of the heap waits for). */
export const pushAnswersRead = (): Promise<void> => Promise.all(tails.values()).then(() => undefined);

/**
 * A smart-HTTP remote with a per-branch object cache under `cacheDir`: ref discovery
 * (`discover-refs.ts`: redirects followed there, then its URL used for every POST), a shallow fetch (depth `historyDepth`, one upload-pack POST, indexed natively)
 * only when the tip is not cached, and a raw compare-and-swap receive-pack push of one pack.
 * Each call runs under its own `callTimeoutMs`. The credentials (`credentials`, else the remote's
 * fixed `auth`) are asked for before each call; a call they were refused for (401/403/203) is sent
 * once more with fresh ones when the provider has any (an expired Entra ID or GitHub App token).
 */
export function openHttpSession({
  remote,
  credentials,
  branch,
  cacheDir,
  clock,
  callTimeoutMs,
  signal,
  historyDepth = 50,
}: {
  remote: Extract<GitRemote, { kind: 'http' }>;
  credentials?: GitCredentials;
  branch: string;
  cacheDir?: string;
  clock: Clock;
  callTimeoutMs: number;
  signal?: AbortSignal;
  historyDepth?: number;
}): RemoteSession {
  const source = credentials ?? (remote.auth ? fixedCredentials(remote.auth) : undefined);
  // where the repository answers and whether credentials may be sent there: a redirected discovery changes both
  let credentialsKept = true;
  let base = remote.url;
  let discovered = false;
  /**
   * Runs `call` with the credentials of the moment; when they were refused and the provider has
   * fresher ones, once more with those. `refused` reads a refusal returned as data (a push).
   */
  const authorized = async <T>(
    s: AbortSignal,
    call: (headers: Record<string, string>) => Promise<T>,
    refused: (result: T) => boolean = () => false,
  ): Promise<T> => {
    const auth: GitAuth | undefined =
      source && credentialsKept ? await source.current({ signal: s }) : undefined;
    // fresh credentials, or none when the provider gives the refused ones again (its own cache)
    const fresher = async () => {
      const fresh = await source!.current({ signal: s });
      return sameAuth(fresh, auth!) ? undefined : fresh;
    };
    let result: T;
    try {
      result = await call(auth ? authorizationHeader(auth) : {});
    } catch (error) {
      if (!(auth && refusedCredentials(error) && source!.refused(auth))) throw error;
      const fresh = await fresher();
      if (!fresh) throw error;
      return call(authorizationHeader(fresh));
    }
    if (auth && refused(result) && source!.refused(auth)) {
      const fresh = await fresher();
      if (fresh) return call(authorizationHeader(fresh));
    }
    return result;
  };
  const url = remote.url;
  const cacheKey = `${url}\n${branch}`;
  let opened: Promise<string> | undefined;
  const gitdir = () => {
    if (!cacheDir) throw new Error('this operation needs a cache folder');
    opened ??= openObjectCache({ cacheDir, key: cacheKey, url });
    return opened;
  };
  const bounded = <T>(step: 'advertise' | 'probe' | 'fetch' | 'push', run: (s: AbortSignal) => Promise<T>) =>
    boundStep({ step, ms: callTimeoutMs, clock, ...(signal ? { signal } : {}), run });
  /**
   * The isomorphic-git cache that read the tip's commit (the branch's kept one: its parsed pack
   * indexes serve the next publication too), or undefined when the commit is missing or corrupt on
   * disk (fetched again, into a fresh cache if need be). A cache that failed is forgotten: it may
   * hold a bad pack's parsed index, which a fetch of the same pack would not replace.
   */
  const readable = async (dir: string, oid: string) => {
    const cache = await keptReadCache(dir);
    // a commit known in memory (the last pushed, a fetched tip) is read from there, never from disk
    if (isKnownObject(dir, oid)) return cache;
    return readCheckedCommit(dir, oid, cache).then(
      () => cache,
      () => {
        forgetReadCache(dir);
        return undefined;
      },
    );
  };
  const pin = async (dir: string, name: string, oid: string) => {
    const ref = `refs/heads/${name}`;
    const current = await readLocalRef({ gitdir: dir, ref });
    // the cache's tip only remembers where the remote was (a pin lost to a power cut reads as no tip)
    if (current !== oid)
      await updateLocalRef({ gitdir: dir, ref, oldOid: current, newOid: oid, clock, durable: false });
  };
  const fetchInto = async (dir: string, name: string, tip: string) => {
    const known = await readLocalRef({ gitdir: dir, ref: `refs/heads/${name}` });
    const { pack } = await bounded('fetch', async (s) =>
      authorized(s, (headers) =>
        fetchPack({
          http: boundedHttp({ signal: s, headers }),
          url: base,
          want: tip,
          now: () => clock.now(),
          haves: known ? [known] : [],
          depth: historyDepth,
        }),
      ),
    );
    if (pack.length > 0) {
      const folders = keepFetchedObjects(dir);
      await installPack({ gitdir: dir, pack, ...indexPack({ pack, visit: folders.visit }) });
      folders.keep();
    }
    return tip;
  };
  const advertise: RemoteSession['advertise'] = async ({ step }) => {
    credentialsKept = true;
    const found = await bounded(step === 'probe' ? 'probe' : 'advertise', (s) =>
      authorized(s, (headers) => discoverRefs({ url, headers, signal: s, now: () => clock.now() })),
    );
    base = found.url;
    credentialsKept = found.credentialsKept;
    discovered = true;
    return { heads: found.heads, defaultBranch: found.defaultBranch, empty: found.empty };
  };

  // a push refused for its credentials was not applied: sending it again is safe
  const refusedPush = (outcome: ReceivePackOutcome) =>
    outcome.kind === 'httpStatus' && outcome.outcome === 'authFailed';
  const send = async (name: string, update: PushUpdate | Promise<PushUpdate>) => {
    // the answer to this branch's last push may still be coming: its connection is this one's
    await tails.get(cacheKey);
    return bounded('push', (s) =>
      authorized(
        s,
        (headers) => {
          // what the server sends after accepting the push is read once it has returned, as long
          // as a call may take
          const tail = new AbortController();
          return sendReceivePack({
            http: boundedHttp({ signal: AbortSignal.any([s, tail.signal]), headers }),
            url: base,
            ref: `refs/heads/${name}`,
            update,
            now: () => clock.now(),
            readTail: (rest) => {
              const read = readTailWithin({ rest, stop: tail, clock, ms: callTimeoutMs });
              tails.set(cacheKey, read);
              void read.then(() => {
                if (tails.get(cacheKey) === read) tails.delete(cacheKey);
              });
            },
          });
        },
        refusedPush,
      ),
    );
  };
  /**
   * The push of `store`'s objects, on the request `opened` ahead (its first answer) when there is
   * one, else on one sent now; sent once more where the repository answers when a guessed URL was
   * not it.
   */
  const pushed = async (
    { branch: name, oldOid, newOid, store, headCommit }: PushArgs,
    opened?: { answer: Promise<ReceivePackOutcome>; provide: (update: PushUpdate) => void },
  ): Promise<ReceivePackOutcome> => {
    const encoded = await encodePack({ store });
    const update: PushUpdate = { oldOid, newOid, pack: encoded.pack, packBytes: encoded.packBytes };
    const whereItAnswers = async (outcome: ReceivePackOutcome) => {
      if (outcome.kind !== 'httpStatus' || discovered || (outcome.status !== 404 && outcome.status >= 400))
        return outcome;
      // a push guessed from the cache went to the configured URL, which may redirect (GitLab without
      // `.git`): that POST was not applied, so find where the repository answers and send it there
      const before = base;
      await advertise({ step: 'probe' });
      return base !== before ? send(name, update) : outcome;
    };
    const dir = await gitdir();
    // the cache keeps what it pushes, blobs too: a later collection delete with a selector or a
    // replica count reads the files it holds; offering this tip as a "have" tells the server not to
    // send them back. It is written while the server takes the same bytes, and taken out again
    // when the push is not applied: nothing in the cache names it before the push is acknowledged.
    const installing = installPack({ gitdir: dir, ...encoded });
    // awaited below on every way out; until then a failure must not count as unhandled
    installing.catch(() => {});
    let outcome: ReceivePackOutcome | undefined;
    try {
      opened?.provide(update);
      outcome = await whereItAnswers(await (opened ? opened.answer : send(name, update)));
    } finally {
      if (outcome?.kind !== 'ok') await withdrawPack(dir, encoded.packSha, installing);
    }
    if (outcome.kind !== 'ok') return outcome;
    await installing;
    if (headCommit) keepPushedCommit(dir, newOid, headCommit);
    await pin(dir, name, newOid);
    compactAfterPublication(dir);
    return outcome;
  };

  return {
    gitdir,
    async knownTip({ branch: name }) {
      if (!cacheDir) return null;
      // a cache not made yet knows no tip: it is made while the remote lists its refs (the fetch
      // that follows waits for it), not before, which a cold start would wait for twice
      if (!opened && !objectCacheExists({ cacheDir, key: cacheKey })) {
        gitdir().catch(() => {});
        return null;
      }
      return readLocalRef({ gitdir: await gitdir(), ref: `refs/heads/${name}` });
    },
    advertise,
    async obtain({ branch: name, tip }) {
      let dir = await gitdir();
      const warm = await readable(dir, tip);
      if (warm) {
        await pin(dir, name, tip);
        return { gitdir: dir, tip, cache: warm };
      }
      await fetchInto(dir, name, tip);
      let cache = await readable(dir, tip);
      if (!cache) {
        // the cache holds something unusable (e.g. left by a killed run): start it again, cold
        opened = openObjectCache({ cacheDir: cacheDir!, key: cacheKey, url, fresh: true });
        dir = await opened;
        await fetchInto(dir, name, tip);
        cache = await keptReadCache(dir);
      }
      // refs/heads/<name> is what the next fetch offers as "have": keep it at the fetched tip, or
      // every later fetch downloads the whole history again
      await pin(dir, name, tip);
      return { gitdir: dir, tip, cache };
    },
    async obtainFiles({ branch: name, tip }) {
      opened = openObjectCache({ cacheDir: cacheDir!, key: cacheKey, url, fresh: true });
      const dir = await opened;
      await fetchInto(dir, name, tip);
      await pin(dir, name, tip);
    },
    push: (args) => pushed(args),
    openPush({ branch: name }) {
      let provide!: (update: PushUpdate) => void;
      let abandon!: (reason: Error) => void;
      const update = new Promise<PushUpdate>((resolve, reject) => {
        provide = resolve;
        abandon = reject;
      });
      update.catch(() => {});
      const answer = send(name, update);
      answer.catch(() => {});
      return {
        push: (args) => pushed({ branch: name, ...args }, { answer, provide }),
        // rejecting a promise already given its update changes nothing: a push under way goes on
        cancel: () => abandon(new Error('the publication ended without this push')),
      };
    },
  };
}

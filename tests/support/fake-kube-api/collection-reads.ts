import type { ServerResponse } from 'node:http';
import { stringifyExactJson } from '../../../shared/json/exact-json';
import type { KubeObject, ObjectStore, ResourceType, StoredChange } from './object-store';
import { statusObjects } from './status-objects';

/** A collection read: which type and namespace (undefined = all namespaces), with its query string. */
export interface CollectionRead {
  type: ResourceType;
  namespace: string | undefined;
  query: URLSearchParams;
}

/** A read's answer: a list, or a Status refusing the request. */
export interface ReadReply {
  status: number;
  body: unknown;
}

/** One open watch stream, as the server keeps it to push changes, bookmarks, a 410 or its end. */
export interface OpenWatch {
  bookmark(): void;
  expire(): void;
  end(): void;
}

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

function prefixOf(type: ResourceType, namespace: string | undefined): string {
  return namespace === undefined
    ? `${type.group}/${type.resource}/`
    : `${type.group}/${type.resource}/${namespace}/`;
}

function listApiVersion(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/**
 * A LIST: current objects in key order, the collection resourceVersion, and `limit`/`continue`
 * chunking. Unlike a real server, later chunks read the current state rather than the first chunk's
 * revision; the continue token still expires (410) once the history is compacted past it.
 */
export function serveList(store: ObjectStore, { type, namespace, query }: CollectionRead): ReadReply {
  const limit = Number(query.get('limit') ?? '0');
  let after = '';
  let revision = store.currentRevision;
  const token = query.get('continue');
  if (token) {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { rv: number; after: string };
    if (parsed.rv < store.oldestWatchableRevision) {
      return { status: 410, body: statusObjects.expired('The provided continue parameter is too old') };
    }
    after = parsed.after;
    revision = parsed.rv;
  }
  const all = store.list(prefixOf(type, namespace)).filter(({ key }) => key > after);
  const page = limit > 0 ? all.slice(0, limit) : all;
  const more = limit > 0 && all.length > limit;
  const last = page[page.length - 1];
  return {
    status: 200,
    body: {
      kind: `${type.kind}List`,
      apiVersion: listApiVersion(type),
      metadata: {
        resourceVersion: String(revision),
        ...(more && last
          ? {
              continue: Buffer.from(JSON.stringify({ rv: revision, after: last.key })).toString('base64'),
              remainingItemCount: all.length - page.length,
            }
          : {}),
      },
      items: page.map(({ object }) => object),
    },
  };
}

/**
 * Checks a watch request before the stream starts: `sendInitialEvents` needs the WatchList feature
 * (`watchList`), `resourceVersionMatch=NotOlderThan` and bookmarks, as kube-apiserver validates it.
 */
export function refuseWatch({ query }: CollectionRead, watchList: boolean): ReadReply | undefined {
  if (query.get('sendInitialEvents') !== 'true') return undefined;
  if (!watchList) {
    return {
      status: 422,
      body: {
        ...statusObjects.badRequest(
          'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
        ),
        code: 422,
        reason: 'Invalid',
      },
    };
  }
  if (query.get('resourceVersionMatch') !== 'NotOlderThan' || query.get('allowWatchBookmarks') !== 'true') {
    return {
      status: 422,
      body: {
        ...statusObjects.badRequest(
          'sendInitialEvents: Forbidden: sendInitialEvents requires resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true',
        ),
        code: 422,
        reason: 'Invalid',
      },
    };
  }
  return undefined;
}

/**
 * A chunked WATCH stream (one JSON event per line): the initial events (with `sendInitialEvents`,
 * or with no resourceVersion), the retained changes after `resourceVersion`, then live changes; an
 * ERROR event with a 410 Expired Status when `resourceVersion` is older than the retained history.
 */
export function openWatch(store: ObjectStore, read: CollectionRead, res: ServerResponse): OpenWatch {
  const { type, namespace, query } = read;
  const prefix = prefixOf(type, namespace);
  const bookmarks = query.get('allowWatchBookmarks') === 'true';
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  const write = (event: { type: string; object: unknown }) => res.write(`${stringifyExactJson(event)}\n`);
  const bookmarkObject = (revision: number, annotations?: Record<string, string>): KubeObject => ({
    apiVersion: listApiVersion(type),
    kind: type.kind,
    metadata: { name: '', resourceVersion: String(revision), ...(annotations ? { annotations } : {}) },
  });
  let unsubscribe = () => {};
  const end = () => {
    unsubscribe();
    res.end();
  };
  const expire = () => {
    write({ type: 'ERROR', object: statusObjects.expired('too old resource version') });
    end();
  };
  const watch: OpenWatch = {
    bookmark: () => {
      if (bookmarks) write({ type: 'BOOKMARK', object: bookmarkObject(store.currentRevision) });
    },
    expire,
    end,
  };
  const from = query.get('resourceVersion') ?? '';
  const initial = query.get('sendInitialEvents') === 'true' || from === '' || from === '0';
  if (initial) {
    for (const { object } of store.list(prefix)) write({ type: 'ADDED', object });
    if (query.get('sendInitialEvents') === 'true') {
      write({
        type: 'BOOKMARK',
        object: bookmarkObject(store.currentRevision, { [INITIAL_EVENTS_END]: 'true' }),
      });
    }
  } else {
    const since = Number(from);
    if (since < store.oldestWatchableRevision) {
      expire();
      return watch;
    }
    for (const change of store.changes) {
      if (change.resourceVersion > since && change.key.startsWith(prefix)) write(toEvent(change));
    }
  }
  unsubscribe = store.subscribe((change) => {
    if (change.key.startsWith(prefix)) write(toEvent(change));
  });
  res.on('close', unsubscribe);
  return watch;
}

function toEvent(change: StoredChange): { type: string; object: KubeObject } {
  return { type: change.type, object: change.object };
}

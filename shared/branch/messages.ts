import type { AdmittedChange } from './commands';
import type { Author, SnapshotScope } from './model';

const VERBS: Partial<Record<AdmittedChange['operation'], string>> = {
  delete: 'DELETE',
  'delete-namespace': 'DELETE',
  'delete-collection': 'DELETECOLLECTION',
  'set-replicas': 'SCALE',
};

/**
 * Commit messages, decided purely, with the original operator's templates: one change → the event template
 * `[UPDATE] apps/v1/deployments shop/web` (`[CREATE]` for a created object, `v1/namespaces/shop` for a
 * cluster-scoped one; `[DELETECOLLECTION] v1/configmaps shop/* (app=web)` for a collection,
 * `[SCALE] apps/v1/deployments shop/web` for a replica count); several → the group template `alice on prod: 3 resource(s)`;
 * a snapshot → the reconcile template `reconciled 6 secrets (last resourceVersion: 1331)`.
 * A save's non-blank message replaces them.
 */
export function eventMessage(change: AdmittedChange): string {
  const verb = VERBS[change.operation] ?? (change.verb === 'create' ? 'CREATE' : 'UPDATE');
  const subject = change.subject;
  if (!subject) return `[${verb}] ${change.path}`;
  if (change.operation === 'delete-collection') {
    const where = change.selector ? ` (${change.selector})` : '';
    const kind = `${subject.apiVersion}/${subject.resource}`;
    return subject.namespace
      ? `[${verb}] ${kind} ${subject.namespace}/*${where}`
      : `[${verb}] ${kind}${where}`;
  }
  // The namespace as kubectl addresses an object (`shop/web`): two `web`s in two namespaces read apart.
  const name = subject.namespace ? `${subject.namespace}/${subject.name}` : subject.name;
  const kind = `${subject.apiVersion}/${subject.resource}`;
  return subject.namespace ? `[${verb}] ${kind} ${name}` : `[${verb}] ${kind}/${name}`;
}

/** The group template; the author is the window's raw username (its name when it has none). */
export function groupMessage(author: Author, target: string, count: number): string {
  return `${author.username ?? author.name} on ${target}: ${count} resource(s)`;
}

/** The reconcile template of a snapshot. */
export function reconcileMessage(
  scope: SnapshotScope,
  revision: string,
  objects: number | undefined,
): string {
  const what = scope.resource ?? 'resources';
  const count = objects === undefined ? '' : `${objects} `;
  return `reconciled ${count}${what} (last resourceVersion: ${revision})`;
}

/** A save's message when it is non-blank, else `fallback`. */
export function saveMessageOr(message: string | undefined, fallback: string): string {
  return message !== undefined && message.trim() !== '' ? message : fallback;
}

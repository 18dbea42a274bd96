/**
 * Which of two changes to one path is newer, whatever order they arrived in: client signals reach
 * the entity out of order and more than once (docs/branch-state-machine.md, "Ordering and
 * idempotence"). Kubernetes resourceVersions are etcd revisions, so two integer ones compare as
 * numbers; otherwise the receipt time (`at` of the request) decides, and a tie goes to the later
 * arrival (the order the branch always used).
 */
export interface ChangeOrder {
  resourceVersion?: string | undefined;
  /** Receipt time in epoch milliseconds; absent for changes stored before it was kept. */
  atMs?: number | undefined;
}

const INTEGER = /^\d+$/;

/** Two resourceVersions compared as etcd revisions (negative: `a` is older), or undefined unless both are integers. */
export function compareResourceVersions(a: string | undefined, b: string | undefined): number | undefined {
  if (a === undefined || b === undefined || !INTEGER.test(a) || !INTEGER.test(b)) return undefined;
  return compareIntegers(a, b);
}

function compareIntegers(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** True when `candidate` must replace `kept` (it is newer, or not older). */
export function supersedes(candidate: ChangeOrder, kept: ChangeOrder): boolean {
  const { resourceVersion: rv, atMs } = candidate;
  if (
    rv !== undefined &&
    kept.resourceVersion !== undefined &&
    INTEGER.test(rv) &&
    INTEGER.test(kept.resourceVersion)
  )
    return compareIntegers(rv, kept.resourceVersion) >= 0;
  if (atMs === undefined || kept.atMs === undefined) return true;
  return atMs >= kept.atMs;
}

/**
 * A change's order as a pending write stores it (`StoredWrite.ord`): the receipt time as base-36
 * milliseconds before the write's decision (signed), with `:<resourceVersion>` when it is an integer.
 */
export function storeOrder(order: ChangeOrder, decidedAtMs: number): string {
  // negative when the decision's own time is earlier: signals carry their request's time, in any order
  const before = order.atMs === undefined ? '' : (decidedAtMs - order.atMs).toString(36);
  const rv = order.resourceVersion;
  return rv !== undefined && INTEGER.test(rv) ? `${before}:${rv}` : before;
}

export function expandOrder(stored: string, decidedAtMs: number): ChangeOrder {
  const colon = stored.indexOf(':');
  const before = colon < 0 ? stored : stored.slice(0, colon);
  const order: ChangeOrder = {};
  if (before !== '') order.atMs = decidedAtMs - Number.parseInt(before, 36);
  if (colon >= 0) order.resourceVersion = stored.slice(colon + 1);
  return order;
}

/**
 * Orchestration versioning as the Durable Functions extension applies it: each instance carries the
 * version it was started with, and a worker runs only the instances its `versionMatchStrategy`
 * accepts against its `defaultVersion`; the others fail or wait (`versionFailureStrategy`).
 */
import type { HostSettings } from './host-config';

/** The versioning settings of a host (from host.json). */
export type Versioning = Pick<
  HostSettings,
  'defaultVersion' | 'versionMatchStrategy' | 'versionFailureStrategy'
>;

/**
 * Compares two versions as the extension does: empty versions are equal and older than any other;
 * two dotted numbers compare part by part, numerically (a missing part is lower than 0, as in .NET's
 * System.Version); anything else compares as case-insensitive text.
 */
export function compareVersions(a: string, b: string): number {
  if (a === '' || b === '') return a === b ? 0 : a === '' ? -1 : 1;
  const numeric = /^\d+(\.\d+){0,3}$/;
  if (numeric.test(a) && numeric.test(b)) {
    const pa = a.split('.').map(Number);
    const pb = b.split('.').map(Number);
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const d = (pa[i] ?? -1) - (pb[i] ?? -1);
      if (d !== 0) return Math.sign(d);
    }
    return 0;
  }
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : 0;
}

/** Why this worker must not run an instance of this version, or undefined when it may. */
export function versionMismatch(versioning: Versioning, instanceVersion: string): string | undefined {
  const { defaultVersion: current, versionMatchStrategy: strategy } = versioning;
  const order = compareVersions(instanceVersion, current);
  const refused = strategy === 'Strict' ? order !== 0 : strategy === 'CurrentOrOlder' ? order > 0 : false;
  if (!refused) return undefined;
  const shown = (v: string) => (v === '' ? 'no version' : `version '${v}'`);
  return (
    `The orchestration has ${shown(instanceVersion)}; this worker runs ${shown(current)} ` +
    `(versionMatchStrategy ${strategy}), so it does not run it.`
  );
}

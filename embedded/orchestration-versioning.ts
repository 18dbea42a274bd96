/**
 * Worker versioning as the Durable Task engine applies it (Azure/durabletask at 5217032,
 * src/DurableTask.Core/TaskOrchestrationDispatcher.cs lines 398-432): each work item of an instance
 * is checked against the worker's `defaultVersion` by its `versionMatchStrategy`; one refused is
 * failed (`Fail`) or abandoned, to wait for another worker (`Reject`). For a Node app the engine
 * dispatches entity work items through the same dispatcher (the extension's
 * AzureStorageDurabilityProviderFactory.cs separates entity queues only for .NET isolated, Java and
 * custom handlers), so an entity, whose version is always empty, is gated like any instance.
 */
import type { HostSettings } from './host-config';

/** The versioning settings of a host (from host.json). */
export type Versioning = Pick<
  HostSettings,
  'defaultVersion' | 'versionMatchStrategy' | 'versionFailureStrategy'
>;

/** The version of every entity: the extension starts entities unversioned. */
export const ENTITY_VERSION = '';

/**
 * The failure the engine records on an instance it fails for its version
 * (TaskOrchestrationDispatcher.cs line 423: `new FailureDetails("VersionMismatch", ...)`).
 */
export const VERSION_MISMATCH = {
  errorType: 'VersionMismatch',
  message: 'Orchestration version did not comply with Worker Versioning',
} as const;

/**
 * VersioningSettings.CompareVersions (Azure/durabletask at 5217032,
 * src/DurableTask.Core/Settings/VersioningSettings.cs lines 89-117): blank versions are equal and
 * older than any other; two versions System.Version parses (2 to 4 dot-separated integers) compare
 * part by part, a missing part lower than 0; anything else (a bare "3" among them) compares as
 * text, ordinally ignoring case, so "10" sorts before "9".
 */
export function compareVersions(a: string, b: string): number {
  const blankA = a.trim() === '';
  const blankB = b.trim() === '';
  if (blankA || blankB) return blankA === blankB ? 0 : blankA ? -1 : 1;
  const pa = systemVersion(a);
  const pb = systemVersion(b);
  if (pa && pb) {
    for (let i = 0; i < 4; i++) {
      const d = (pa[i] ?? -1) - (pb[i] ?? -1);
      if (d !== 0) return Math.sign(d);
    }
    return 0;
  }
  // string.Compare(..., StringComparison.OrdinalIgnoreCase) compares the upper-cased UTF-16 units.
  const ua = a.toUpperCase();
  const ub = b.toUpperCase();
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

const INT32_MAX = 2 ** 31 - 1;

/** The parts of a version as System.Version.TryParse reads it: 2 to 4 integers in 0..2^31-1. */
function systemVersion(v: string): number[] | undefined {
  const parts = v.split('.');
  if (parts.length < 2 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    // Each part goes through int.TryParse with NumberStyles.Integer: blanks around, a sign.
    if (!/^\s*[+-]?\d+\s*$/.test(part)) return undefined;
    const n = Number(part.trim());
    if (n < 0 || n > INT32_MAX) return undefined;
    numbers.push(n);
  }
  return numbers;
}

/**
 * Whether this worker refuses a work item of an instance of this version, and why (for the host's
 * log; the instance itself records only VERSION_MISMATCH). `Strict` compares ordinally
 * (`Version != runtimeState.Version`), `CurrentOrOlder` refuses only a newer version.
 */
export function versionMismatch(versioning: Versioning, instanceVersion: string): string | undefined {
  const { defaultVersion: current, versionMatchStrategy: strategy } = versioning;
  const refused =
    strategy === 'Strict'
      ? instanceVersion !== current
      : strategy === 'CurrentOrOlder'
        ? compareVersions(instanceVersion, current) > 0
        : false;
  if (!refused) return undefined;
  const shown = (v: string) => (v === '' ? 'no version' : `version '${v}'`);
  return `the instance has ${shown(instanceVersion)}; this worker runs ${shown(current)} (versionMatchStrategy ${strategy})`;
}

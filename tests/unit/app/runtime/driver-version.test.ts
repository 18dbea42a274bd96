// The branch driver is an eternal orchestration: a deployment whose driver code differs runs under
// a new DRIVER_VERSION, so no worker replays a driver's history with other code (docs/upgrades.md).
// This pins the driver's code to its version.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions } from '../../../../embedded/orchestration-versioning';
import { DRIVER_VERSION } from '../../../../shared/app/runtime/durable-names';

const ROOT = join(__dirname, '..', '..', '..', '..');
const THIS_FILE = 'tests/unit/app/runtime/driver-version.test.ts';

/**
 * The code a driver's replay depends on: the orchestrator and the driver modules it imports. Its
 * other imports are durable names (pinned by durable-names.test.ts), types, and the scrubbing of
 * failure messages, none of which changes which actions a replay schedules.
 */
const DRIVER_CODE = [
  'orchestrators/branch-driver.ts',
  'shared/app/driver/driver-input.ts',
  'shared/app/driver/driver-status.ts',
  'shared/app/driver/driver-step.ts',
];

/** The hash of the driver's code at each version (record a new row with each new version). */
const RECORDED: Record<string, string> = {
  '2': 'bf336020f7e5ebf66c0c674ea5bcbe65ac995f06b3375581c658f08ba4e6eeb5',
  // waits, recording nothing, when a Git activity answers RepositoryBusy
  '3': '6304f8fc4808816429281f6daaccc860fb11608c894ba372a9447652eb9ecf4a',
  // ends a driver started by other code (its input's driverVersion), under CurrentOrOlder + Reject
  '4.0': 'ba9824c93c37b14dbcec3e3b9b41e767329674b2d5d26a03029c9536baf7581a',
  // runs the pull-request activity a proposing branch owes (publish: propose)
  '4.1': 'fe55736aed14660dd40a7a9d62db92ff751ce254fbaa066cc0b2fd25ed863618',
};

/** sha256 of the driver's files, each with its path; line endings normalized so a checkout cannot change it. */
function driverCodeHash(): string {
  const hash = createHash('sha256');
  for (const path of DRIVER_CODE) {
    hash.update(`${path}\n`);
    hash.update(readFileSync(join(ROOT, path), 'utf8').replace(/\r\n?/g, '\n'));
    hash.update('\0');
  }
  return hash.digest('hex');
}

// The engine gates every work item of a Node app, entities included (their version is empty), by
// host.json's strategy (Azure/durabletask at 5217032, TaskOrchestrationDispatcher.cs lines 398-432):
// only CurrentOrOlder runs entities beside a defaultVersion, and only Reject leaves a newer
// driver or withdrawal for a newer worker instead of failing it.
it("host.json's defaultVersion is DRIVER_VERSION, matched CurrentOrOlder, a newer instance left waiting", () => {
  const hostJson = JSON.parse(readFileSync(join(ROOT, 'host.json'), 'utf8'));
  expect(hostJson.extensions.durableTask).toMatchObject({
    defaultVersion: DRIVER_VERSION,
    versionMatchStrategy: 'CurrentOrOlder',
    versionFailureStrategy: 'Reject',
  });
});

// VersioningSettings.CompareVersions compares as text what System.Version does not parse ("10"
// before "9"): the driver's version must parse, so each release's version is above the last.
it("DRIVER_VERSION is above every earlier version, in the engine's order", () => {
  expect(DRIVER_VERSION).toMatch(/^\d+\.\d+$/);
  for (const earlier of Object.keys(RECORDED).filter((v) => v !== DRIVER_VERSION))
    expect(compareVersions(DRIVER_VERSION, earlier)).toBe(1);
  expect(compareVersions(DRIVER_VERSION, '')).toBe(1);
});

it('the driver code is the code recorded for DRIVER_VERSION', () => {
  const actual = driverCodeHash();
  const recorded = RECORDED[DRIVER_VERSION];
  if (recorded !== actual) {
    throw new Error(
      recorded === undefined
        ? `DRIVER_VERSION '${DRIVER_VERSION}' has no recorded hash: record '${DRIVER_VERSION}': '${actual}' in ${THIS_FILE}.`
        : `The branch driver's code changed (${DRIVER_CODE.join(', ')}) but DRIVER_VERSION is still ` +
            `'${DRIVER_VERSION}': running drivers would replay their history with other code. Raise ` +
            'DRIVER_VERSION in shared/app/runtime/durable-names.ts and defaultVersion in host.json, and ' +
            `record the new version's hash '${actual}' in ${THIS_FILE}.`,
    );
  }
});

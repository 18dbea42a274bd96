// A synthetic next release of the app, for tests of a deployment's overlap: its driver runs under
// the next DRIVER_VERSION, and its branch state is one version up, adding a field (as a later
// release may: docs/upgrades.md), `nextRelease`, which counts the upgrades that wrote it.
// Each release is loaded afresh for its turn on the store (loadRelease).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BranchEntityState } from '../../../shared/app/entity/branch-operations';
import type * as StoredState from '../../../shared/app/entity/stored-state';
import type * as DurableNames from '../../../shared/app/runtime/durable-names';
import type * as AppHostModule from './app-host';

const ROOT = join(__dirname, '..', '..', '..');
/** One minor version above this release's driver (host.json's defaultVersion), whatever it is. */
export const NEXT_DRIVER_VERSION = ((current: string) => {
  const [major, minor] = current.split('.').map(Number);
  return `${major}.${(minor ?? 0) + 1}`;
})(JSON.parse(readFileSync(join(ROOT, 'host.json'), 'utf8')).extensions.durableTask.defaultVersion);

/** The next release's stored-state module: reads every state this release reads, then upgrades it once more. */
function nextStoredState(): typeof StoredState {
  const current = jest.requireActual<typeof StoredState>(STORED_STATE);
  const version = current.BRANCH_STATE_VERSION + 1;
  return {
    BRANCH_STATE_VERSION: version as typeof current.BRANCH_STATE_VERSION,
    readStoredState(stored) {
      // Its own version it reads itself; the earlier ones through this release's reader.
      const own = stored as { branch?: { version?: unknown } } | null | undefined;
      if (own?.branch?.version === version) return { ok: true, state: stored as BranchEntityState };
      const reading = current.readStoredState(stored);
      if (!reading.ok) return reading;
      const upgraded = reading.state as typeof reading.state & { nextRelease?: { upgrades: number } };
      return {
        ok: true,
        state: {
          ...upgraded,
          nextRelease: { upgrades: (upgraded.nextRelease?.upgrades ?? 0) + 1 },
          branch: { ...upgraded.branch, version: version as typeof upgraded.branch.version },
        },
      };
    },
  };
}

const STORED_STATE = join(ROOT, 'shared/app/entity/stored-state');
const DURABLE_NAMES = join(ROOT, 'shared/app/runtime/durable-names');

/**
 * `startAppHost` of this release or of the next one, loaded afresh (jest.resetModules: the app
 * registers its functions once per module registry, so one release's host runs at a time), and
 * the host.json each deploys: the next one's raises defaultVersion, the rest as this release's.
 */
export function loadRelease(
  release: 'current' | 'next',
  dir: string,
): { startAppHost: typeof AppHostModule.startAppHost; hostJsonFile: string } {
  jest.resetModules();
  if (release === 'current') {
    jest.dontMock(STORED_STATE);
    jest.dontMock(DURABLE_NAMES);
    return { startAppHost: require('./app-host').startAppHost, hostJsonFile: join(ROOT, 'host.json') };
  }
  const hostJson = JSON.parse(readFileSync(join(ROOT, 'host.json'), 'utf8'));
  hostJson.extensions.durableTask.defaultVersion = NEXT_DRIVER_VERSION;
  const hostJsonFile = join(dir, 'host.next.json');
  writeFileSync(hostJsonFile, JSON.stringify(hostJson));
  jest.doMock(STORED_STATE, nextStoredState);
  jest.doMock(DURABLE_NAMES, () => ({
    ...jest.requireActual<typeof DurableNames>(DURABLE_NAMES),
    DRIVER_VERSION: NEXT_DRIVER_VERSION,
  }));
  return { startAppHost: require('./app-host').startAppHost, hostJsonFile };
}

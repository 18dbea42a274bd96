jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { join } from 'node:path';
import type { HostOptions } from '../../embedded/host';
import { HostJsonError, parseHostSettings, readHostSettings } from '../../embedded/host-config';
import { compareVersions } from '../../embedded/orchestration-versioning';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

// Worker versioning as the Durable Task engine applies it (host.json `defaultVersion`,
// `versionMatchStrategy`, `versionFailureStrategy`), read from Azure/durabletask at 5217032:
// src/DurableTask.Core/TaskOrchestrationDispatcher.cs lines 398-432 (the gate, with no exemption for
// the entity work items a Node app's entities are), line 1075 (continueAsNew keeps the instance's
// version), src/DurableTask.Core/Settings/VersioningSettings.cs lines 89-117 (CompareVersions); the
// extension's defaults from DurableTaskOptions.cs (CurrentOrOlder, Reject).
const APP = require.resolve('../support/embedded/sample-app');
let t: TestHost;

afterEach(async () => {
  await t.stop();
});

type Versioning = NonNullable<Exclude<HostOptions['hostJson'], string>>;
const versioning = (v: Versioning): Partial<HostOptions> => ({ hostJson: v });
const status = (id: string) => t.host.client.getStatus(id, { showHistory: true })!;
async function go(id: string) {
  expect(t.host.client.raiseEvent(id, 'go', null)).toBe('accepted');
  await t.host.waitForIdle();
}

describe('startNew', () => {
  it("stamps the instance with host.json's defaultVersion, which the orchestrator sees", async () => {
    t = await startTestHost(APP, versioning({ defaultVersion: '1' }));
    const id = t.host.client.startNew('Versioned');
    await t.host.waitForIdle();
    await go(id);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '1' });
  });

  it('stamps an explicit version instead, from the client and from the RPC API', async () => {
    t = await startTestHost(APP, versioning({ defaultVersion: '1' }));
    const id = t.host.client.startNew('Versioned', { version: '0.9' });
    const res = await fetch(`${t.host.rpcBaseUrl}orchestrators/Versioned/over-rpc?version=0.8`, {
      method: 'POST',
      body: 'null',
    });
    expect(res.status).toBe(202);
    await t.host.waitForIdle();
    await go(id);
    await go('over-rpc');
    expect(status(id).output).toBe('0.9');
    expect(status('over-rpc').output).toBe('0.8');
  });

  it('stamps no version without a defaultVersion', async () => {
    t = await startTestHost(APP);
    const id = t.host.client.startNew('Versioned');
    await t.host.waitForIdle();
    await go(id);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '' });
  });
});

describe('given an instance started under version 1, when the host restarts with defaultVersion 2', () => {
  let id: string;
  const startUnderVersion1 = async () => {
    t = await startTestHost(APP, versioning({ defaultVersion: '1', versionMatchStrategy: 'Strict' }));
    id = t.host.client.startNew('Versioned');
    await t.host.waitForIdle();
    expect(status(id).runtimeStatus).toBe('Running');
  };

  it("Strict + Fail fails it at its next episode with the engine's VersionMismatch, the versions in the log", async () => {
    await startUnderVersion1();
    await t.restart(
      versioning({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' }),
    );
    await go(id);
    const failed = status(id);
    expect(failed.runtimeStatus).toBe('Failed');
    // TaskOrchestrationDispatcher.cs line 423: FailureDetails("VersionMismatch", "Orchestration version did not comply with Worker Versioning").
    expect(String(failed.output)).toContain(
      'VersionMismatch: Orchestration version did not comply with Worker Versioning',
    );
    expect(failed.history?.at(-1)).toMatchObject({ EventType: 'ExecutionFailed' });
    expect(t.logs).toContainEqual(
      expect.objectContaining({
        event: 'OrchestrationVersionFailed',
        instanceId: id,
        reason: "the instance has version '1'; this worker runs version '2' (versionMatchStrategy Strict)",
      }),
    );
    // A new instance is stamped with version 2 and runs.
    const fresh = t.host.client.startNew('Versioned');
    await t.host.waitForIdle();
    await go(fresh);
    expect(status(fresh)).toMatchObject({ runtimeStatus: 'Completed', output: '2' });
  });

  it('Strict compares ordinally: a version differing only in case is refused', async () => {
    t = await startTestHost(
      APP,
      versioning({ defaultVersion: 'v1', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' }),
    );
    const other = t.host.client.startNew('Versioned', { version: 'V1' });
    const same = t.host.client.startNew('Versioned', { version: 'v1' });
    await t.host.waitForIdle();
    await go(same);
    expect(status(other).runtimeStatus).toBe('Failed');
    expect(status(same)).toMatchObject({ runtimeStatus: 'Completed', output: 'v1' });
  });

  it('Strict + Reject leaves its work queued, unrun, until a host of its version takes it', async () => {
    await startUnderVersion1();
    await t.restart(
      versioning({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Reject' }),
    );
    await go(id);
    expect(status(id).runtimeStatus).toBe('Running');
    expect(t.logs).toContainEqual(
      expect.objectContaining({ event: 'OrchestrationVersionRejected', instanceId: id, version: '1' }),
    );
    await t.restart(versioning({ defaultVersion: '1', versionMatchStrategy: 'Strict' }));
    await t.host.waitForIdle();
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '1' });
  });

  it('CurrentOrOlder runs it (an older version), and fails an instance of a newer version', async () => {
    await startUnderVersion1();
    const current = {
      defaultVersion: '2',
      versionMatchStrategy: 'CurrentOrOlder',
      versionFailureStrategy: 'Fail',
    } as const;
    await t.restart(versioning(current));
    await go(id);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '1' });
    const newer = t.host.client.startNew('Versioned', { version: '3' });
    await t.host.waitForIdle();
    expect(status(newer).runtimeStatus).toBe('Failed');
    expect(t.logs).toContainEqual(
      expect.objectContaining({
        event: 'OrchestrationVersionFailed',
        instanceId: newer,
        reason: expect.stringContaining("has version '3'; this worker runs version '2'"),
      }),
    );
  });

  it('CurrentOrOlder + Reject leaves an instance of a newer version queued until a newer host takes it', async () => {
    // What keeps a withdrawal started by new code alive while old workers still run (docs/upgrades.md).
    const older = {
      defaultVersion: '4.0',
      versionMatchStrategy: 'CurrentOrOlder',
      versionFailureStrategy: 'Reject',
    } as const;
    t = await startTestHost(APP, versioning(older));
    const newer = t.host.client.startNew('Versioned', { version: '4.1' });
    await t.host.waitForIdle();
    expect(status(newer).runtimeStatus).toBe('Pending');
    await t.restart(versioning({ ...older, defaultVersion: '4.1' }));
    await t.host.waitForIdle();
    await go(newer);
    expect(status(newer)).toMatchObject({ runtimeStatus: 'Completed', output: '4.1' });
  });

  it("continueAsNew keeps the instance's version, not the worker's defaultVersion", async () => {
    t = await startTestHost(APP, versioning({ defaultVersion: '2', versionMatchStrategy: 'CurrentOrOlder' }));
    id = t.host.client.startNew('Versioned', { version: '1', input: { renew: true } });
    await t.host.waitForIdle();
    await go(id);
    await go(id);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '1' });
  });

  it('None runs it whatever its version', async () => {
    await startUnderVersion1();
    await t.restart(
      versioning({ defaultVersion: '2', versionMatchStrategy: 'None', versionFailureStrategy: 'Fail' }),
    );
    await go(id);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '1' });
  });
});

describe('entities, which a Node app runs unversioned, pass the same gate', () => {
  const counter = () => t.host.client.readEntityState('Counter', 'c');
  const addFive = async () => {
    t.host.client.signalEntity('Counter', 'c', 'add', '5');
    await t.host.waitForIdle();
  };

  it('Strict with a defaultVersion fails every batch: the operations are dropped, the state kept', async () => {
    t = await startTestHost(APP);
    await addFive();
    await t.restart(
      versioning({ defaultVersion: '3', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' }),
    );
    await addFive();
    const caller = t.host.client.startNew('UsesCounter', { input: 'c', version: '3' });
    await t.host.waitForIdle();
    expect(counter()).toEqual({ exists: true, state: { value: 5 } });
    // The orchestration's call is never answered: the entity's instance failed.
    expect(status(caller).runtimeStatus).toBe('Running');
    expect(t.logs).toContainEqual(
      expect.objectContaining({
        event: 'EntityVersionFailed',
        entity: 'counter',
        key: 'c',
        error: 'VersionMismatch: Orchestration version did not comply with Worker Versioning',
      }),
    );
  });

  it('Strict + Reject leaves them queued until a worker that takes them', async () => {
    t = await startTestHost(
      APP,
      versioning({ defaultVersion: '3', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Reject' }),
    );
    await addFive();
    expect(counter()).toEqual({ exists: false });
    await t.restart(versioning({ defaultVersion: '3', versionMatchStrategy: 'CurrentOrOlder' }));
    await t.host.waitForIdle();
    expect(counter()).toEqual({ exists: true, state: { value: 5 } });
  });

  it('CurrentOrOlder runs them: no version is older than any', async () => {
    t = await startTestHost(
      APP,
      versioning({
        defaultVersion: '4.0',
        versionMatchStrategy: 'CurrentOrOlder',
        versionFailureStrategy: 'Fail',
      }),
    );
    await addFive();
    expect(counter()).toEqual({ exists: true, state: { value: 5 } });
  });
});

describe("the app's host.json", () => {
  const ROOT = join(__dirname, '..', '..');
  const settingsOf = (file: string) => {
    const { defaultVersion, versionMatchStrategy, versionFailureStrategy } = readHostSettings(file);
    return { defaultVersion, versionMatchStrategy, versionFailureStrategy };
  };

  it.each([
    [
      '0.3.0 (Strict, Fail) drops them',
      join(ROOT, 'tests', 'fixtures', 'versioning', 'host-0.3.0.json'),
      false,
    ],
    ['this release (CurrentOrOlder, Reject) runs them', join(ROOT, 'host.json'), true],
  ])('gating entities: %s', async (_, file, runs) => {
    t = await startTestHost(APP, versioning(settingsOf(file)));
    t.host.client.signalEntity('Counter', 'c', 'add', '5');
    await t.host.waitForIdle();
    expect(t.host.client.readEntityState('Counter', 'c')).toEqual(
      runs ? { exists: true, state: { value: 5 } } : { exists: false },
    );
  });
});

describe('host.json versioning settings', () => {
  const durableTask = (settings: Record<string, unknown>) =>
    parseHostSettings({ extensions: { durableTask: settings } });

  it('reads defaultVersion, versionMatchStrategy and versionFailureStrategy', () => {
    expect(
      durableTask({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' }),
    ).toMatchObject({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' });
  });

  it('defaults as the extension does: no version, CurrentOrOlder and Reject', () => {
    expect(durableTask({})).toMatchObject({
      defaultVersion: '',
      versionMatchStrategy: 'CurrentOrOlder',
      versionFailureStrategy: 'Reject',
    });
  });

  it('refuses an unknown strategy, naming the field', () => {
    expect(() => durableTask({ versionMatchStrategy: 'Newest' })).toThrow(HostJsonError);
    expect(() => durableTask({ versionFailureStrategy: 'Ignore' })).toThrow(
      'host.json: extensions.durableTask.versionFailureStrategy',
    );
  });
});

describe('version order', () => {
  it.each([
    ['', '', 0],
    [' ', '', 0],
    ['', '1', -1],
    ['1', '', 1],
    ['1', '2', -1],
    ['2', '2', 0],
    // Two dotted numbers parse as a System.Version and compare part by part.
    ['1.10', '1.9', 1],
    ['10.0', '9.0', 1],
    ['1.0', '1.0.0', -1],
    ['1.2.3.4', '1.2.3.5', -1],
    // A bare number does not parse ("3" is not a System.Version): compared as text.
    ['10', '9', -1],
    ['3', '4.0', -1],
    ['1.2.3.4.5', '1.2.3.4.6', -1],
    ['2147483648.0', '3.0', -1],
    // Text compares ordinally, ignoring case (upper-cased: '_' sorts after 'A').
    ['v1-Release', 'V1-release', 0],
    ['_', 'a', 1],
    ['2025-01-01', '2025-02-01', -1],
  ])('compares %p with %p as %p', (a, b, order) => {
    expect(compareVersions(a, b)).toBe(order);
  });
});

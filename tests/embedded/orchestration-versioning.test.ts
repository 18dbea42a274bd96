jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import type { HostOptions } from '../../embedded/host';
import { HostJsonError, parseHostSettings } from '../../embedded/host-config';
import { compareVersions } from '../../embedded/orchestration-versioning';
import { startTestHost, type TestHost } from '../support/embedded/in-process-host';

// Orchestration versioning as the Durable Functions extension applies it (host.json
// `defaultVersion`, `versionMatchStrategy`, `versionFailureStrategy`).
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

  it('Strict + Fail fails it at its next episode, with the reason in its output, history and log', async () => {
    await startUnderVersion1();
    await t.restart(
      versioning({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' }),
    );
    await go(id);
    const failed = status(id);
    expect(failed.runtimeStatus).toBe('Failed');
    const reason =
      "The orchestration has version '1'; this worker runs version '2' (versionMatchStrategy Strict)";
    expect(String(failed.output)).toContain(reason);
    expect(failed.history?.at(-1)).toMatchObject({ EventType: 'ExecutionFailed' });
    expect(t.logs).toContainEqual(
      expect.objectContaining({
        event: 'OrchestrationFailed',
        instanceId: id,
        error: expect.stringContaining(reason),
      }),
    );
    // A new instance is stamped with version 2 and runs.
    const fresh = t.host.client.startNew('Versioned');
    await t.host.waitForIdle();
    await go(fresh);
    expect(status(fresh)).toMatchObject({ runtimeStatus: 'Completed', output: '2' });
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
    expect(String(status(newer).output)).toContain("has version '3'; this worker runs version '2'");
  });

  it('continueAsNew starts the next execution under the current defaultVersion', async () => {
    t = await startTestHost(APP, versioning({ defaultVersion: '2', versionMatchStrategy: 'CurrentOrOlder' }));
    id = t.host.client.startNew('Versioned', { version: '1', input: { renew: true } });
    await t.host.waitForIdle();
    await go(id);
    await go(id);
    expect(status(id)).toMatchObject({ runtimeStatus: 'Completed', output: '2' });
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

describe('host.json versioning settings', () => {
  const durableTask = (settings: Record<string, unknown>) =>
    parseHostSettings({ extensions: { durableTask: settings } });

  it('reads defaultVersion, versionMatchStrategy and versionFailureStrategy', () => {
    expect(
      durableTask({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' }),
    ).toMatchObject({ defaultVersion: '2', versionMatchStrategy: 'Strict', versionFailureStrategy: 'Fail' });
  });

  it('defaults to no version, None and Reject', () => {
    expect(durableTask({})).toMatchObject({
      defaultVersion: '',
      versionMatchStrategy: 'None',
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
    ['', '1', -1],
    ['1', '', 1],
    ['1', '2', -1],
    ['2', '2', 0],
    ['1.10', '1.9', 1],
    ['10', '9', 1],
    ['1.0', '1.0.0', -1],
    ['v1-Release', 'V1-release', 0],
    ['2025-01-01', '2025-02-01', -1],
  ])('compares %p with %p as %p', (a, b, order) => {
    expect(compareVersions(a, b)).toBe(order);
  });
});

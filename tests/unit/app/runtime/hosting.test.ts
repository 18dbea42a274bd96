// The app's runtime (functions/runtime.ts) as the Functions host builds it, under an Azure-like
// environment: a configuration that turns authentication off is refused at start, naming why.

import { appRuntime } from '../../../../functions/runtime';
import { functionTimeoutMs } from '../../../../shared/app/runtime/hosting';
import { EMBEDDED_HOST_VARIABLE } from '../../../../shared/host-marker';
import { azureEnvironment } from '../../../support/app/azure-environment';

const azure = azureEnvironment();
const repository = azure.repository;
const { target } = azure;
const onAzure = azure.set;

describe('the app runtime on the Functions host', () => {
  it('refuses auth: disabled, saying the host would serve it publicly', async () => {
    onAzure({
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify({
        repositories: [repository()],
        targets: [target],
        server: { host: '127.0.0.1', auth: 'disabled' },
      }),
    });
    await expect(appRuntime()).rejects.toThrow(/server\.auth is "disabled".*publicly/);
  });

  it('refuses to run without a configuration (the default disables auth)', async () => {
    onAzure({});
    await expect(appRuntime()).rejects.toThrow(/no configuration was given.*KUBESCRIBE_CONFIG/);
  });

  it('refuses auth: disabled even when the embedded host mark is set on an Azure instance', async () => {
    onAzure({
      [EMBEDDED_HOST_VARIABLE]: '1',
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify({
        repositories: [repository()],
        targets: [target],
        server: { auth: 'disabled' },
      }),
    });
    await expect(appRuntime()).rejects.toThrow(/server\.auth is "disabled"/);
  });

  // the runtime is built once per process, so this runs before a test that builds it successfully
  it("refuses a repositoryConcurrency that would let one repository take every activity slot of the project's host.json", async () => {
    const config = (repositoryConcurrency: number) =>
      JSON.stringify({
        repositories: [repository()],
        targets: [target],
        sources: [{ name: 'cluster-a', tokenEnv: 'CLUSTER_A_TOKEN', targets: ['*'] }],
        limits: { repositoryConcurrency },
      });
    // host.json: maxConcurrentActivityFunctions 4
    onAzure({ KUBESCRIBE_CONFIG_CONTENT: config(4), CLUSTER_A_TOKEN: 'cluster-a-token-value' });
    await expect(appRuntime()).rejects.toThrow(
      /limits\.repositoryConcurrency: 4 would let one repository whose calls hang hold all 4 activity slots.*at most 3/,
    );
    onAzure({ KUBESCRIBE_CONFIG_CONTENT: config(3), CLUSTER_A_TOKEN: 'cluster-a-token-value' });
    await expect(appRuntime()).resolves.toMatchObject({
      loaded: { config: { limits: { repositoryConcurrency: 3 } } },
    });
  });

  it('starts with auth required', async () => {
    onAzure({
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify({
        repositories: [repository()],
        targets: [target],
        sources: [{ name: 'cluster-a', tokenEnv: 'CLUSTER_A_TOKEN', targets: ['*'] }],
      }),
      CLUSTER_A_TOKEN: 'cluster-a-token-value',
    });
    await expect(appRuntime()).resolves.toMatchObject({ authMode: 'required' });
  });
});

describe("host.json's functionTimeout", () => {
  it('reads hours, minutes, seconds and days, unbounded, and the host default', () => {
    expect(functionTimeoutMs({ functionTimeout: '00:10:00' })).toBe(600_000);
    expect(functionTimeoutMs({ functionTimeout: '1.02:00:30' })).toBe((26 * 3600 + 30) * 1000);
    expect(functionTimeoutMs({ functionTimeout: '-1' })).toBe(Number.POSITIVE_INFINITY);
    expect(functionTimeoutMs({})).toBe(300_000);
    expect(() => functionTimeoutMs({ functionTimeout: '10m' })).toThrow(/not a duration/);
  });
});

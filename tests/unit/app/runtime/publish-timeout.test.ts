// The app's runtime (functions/runtime.ts) as the Functions host builds it, under an Azure-like
// environment: a publication bound the host's functionTimeout would cut short is refused at start.
// (A runtime that started is kept for the process: this file starts none.)
import { appRuntime } from '../../../../functions/runtime';
import { azureEnvironment } from '../../../support/app/azure-environment';

const azure = azureEnvironment();
const repository = azure.repository;
const { target } = azure;
const onAzure = azure.set;

describe('the app runtime on the Functions host', () => {
  it("refuses a publishTimeout the host's functionTimeout (host.json: 10 min) would cut short", async () => {
    onAzure({
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify({
        repositories: [repository()],
        targets: [target],
        sources: [{ name: 'cluster-a', tokenEnv: 'CLUSTER_A_TOKEN', targets: ['*'] }],
        limits: { publishTimeout: '24h' },
      }),
      CLUSTER_A_TOKEN: 'cluster-a-token-value',
    });
    await expect(appRuntime()).rejects.toThrow(
      /limits\.publishTimeout: 86400s does not fit .* 600s .* at most 540s/,
    );
  });
});

// The app's runtime (functions/runtime.ts) as the Functions host builds it, under an Azure-like
// environment: a publication bound the host's functionTimeout would cut short is refused at start.
// (A runtime that started is kept for the process: this file starts none.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appRuntime } from '../../../../functions/runtime';

const saved = { ...process.env };
let dataDir: string;

const repository = () => ({ name: 'state', url: join(dataDir, 'state.git') });
const target = { name: 'prod', repository: 'state', branch: 'main' };

/** An environment as Azure sets it, plus the app's settings. */
function onAzure(settings: Record<string, string>): void {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, {
    PATH: saved.PATH,
    FUNCTIONS_WORKER_RUNTIME: 'node',
    WEBSITE_INSTANCE_ID: '3f1c2a100d7e4a559a510c6f7f0e1a99',
    WEBSITE_SITE_NAME: 'func-kubescribe',
    KUBESCRIBE_DATA: dataDir,
    ...settings,
  });
}

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ks-hosting-'));
});
afterEach(() => {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, saved);
  rmSync(dataDir, { recursive: true, force: true });
});

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

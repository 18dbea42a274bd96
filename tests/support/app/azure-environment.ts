// The process environment as Azure sets it for the app, with a data folder per test; restored after
// each test. For tests of the app's runtime as the Functions host builds it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AzureEnvironment {
  /** Replaces the environment with Azure's variables plus `settings`. */
  set(settings: Record<string, string>): void;
  /** A repository entry whose bare repository lives in the test's data folder. */
  repository(): { name: string; url: string };
  target: { name: string; repository: string; branch: string };
}

/** Installs beforeEach/afterEach hooks that give each test a data folder and restore the environment. */
export function azureEnvironment(): AzureEnvironment {
  const saved = { ...process.env };
  let dataDir = '';
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ks-hosting-'));
  });
  afterEach(() => {
    for (const name of Object.keys(process.env)) delete process.env[name];
    Object.assign(process.env, saved);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    set(settings) {
      for (const name of Object.keys(process.env)) delete process.env[name];
      Object.assign(process.env, {
        PATH: saved.PATH,
        FUNCTIONS_WORKER_RUNTIME: 'node',
        WEBSITE_INSTANCE_ID: '3f1c2a100d7e4a559a510c6f7f0e1a99',
        WEBSITE_SITE_NAME: 'func-kubescribe',
        KUBESCRIBE_DATA: dataDir,
        ...settings,
      });
    },
    repository: () => ({ name: 'state', url: join(dataDir, 'state.git') }),
    target: { name: 'prod', repository: 'state', branch: 'main' },
  };
}

// The app on the engine's worker versioning, with the host.json it ships. The engine gates every
// work item of a Node app by host.json's strategy, entity work items included (Azure/durabletask at
// 5217032, src/DurableTask.Core/TaskOrchestrationDispatcher.cs lines 398-432; the extension's
// AzureStorageDurabilityProviderFactory.cs gives entities a queue of their own only for .NET
// isolated, Java and custom handlers), and an entity's version is empty: 0.3.0's `Strict` against
// defaultVersion "3" fails every batch of the branch entity (this release's CurrentOrOlder runs it).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

const ROOT = join(__dirname, '..', '..');
const HOST_JSON_0_3_0 = join(ROOT, 'tests', 'fixtures', 'versioning', 'host-0.3.0.json');
let app: AppHost | undefined;
let remote = '';

afterAll(async () => {
  await app?.stop();
  if (remote) rmSync(join(remote, '..'), { recursive: true, force: true });
});

const configMap = (name: string) => ({
  type: 'ADDED',
  resource: 'configmaps',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { a: '1' } },
});

// Every other end-to-end test runs this release's host.json on the same faithful host and publishes.
it("loses an accepted change under 0.3.0's host.json", async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'kubescribe-e2e-')), 'state.git'));
  app = await startAppHost(oneTargetConfig({ url: remote }), {}, { hostJsonFile: HOST_JSON_0_3_0 });
  expect(
    (await app.http('POST', '/api/v1/targets/prod/events', { events: [configMap('lost')] })).status,
  ).toBe(202);
  await app.advance(30_000);
  expect(await git(remote, 'for-each-ref', 'refs/heads')).toBe('');
  expect(app.logs).toContainEqual(
    expect.objectContaining({
      event: 'EntityVersionFailed',
      entity: 'branch',
      error: 'VersionMismatch: Orchestration version did not comply with Worker Versioning',
    }),
  );
});

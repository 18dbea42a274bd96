// Which targets hold the forwarder's changes for their audit record: those an eventHub source
// records (combined feeds, docs/connect-a-cluster.md), with the wait the configuration gives or
// two minutes; every other target holds nothing, whatever it was told before.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppRuntime,
  createAppRuntime,
  settingsCommands,
} from '../../../../shared/app/runtime/app-runtime';
import { ConfigInvalid, loadConfig } from '../../../../shared/config';
import { openPayloadStore } from '../../../../shared/payloads';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ks-attribution-wait-'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const target = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  repository: 'state',
  branch: 'main',
  path: name,
  ...extra,
});

async function runtimeWith(targets: object[], recorded: string[]): Promise<AppRuntime> {
  const config = {
    repositories: [{ name: 'state', url: join(root, 'state.git'), createIfMissing: true }],
    targets,
    sources: [{ name: 'aks', kind: 'eventHub', eventHub: { hub: 'aks-audit' }, targets: recorded }],
    server: { auth: 'disabled' },
  };
  const loaded = await loadConfig({
    env: { KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config), KUBESCRIBE_DATA: join(root, 'data') },
    readFile: (path) => readFile(path, 'utf8'),
  });
  const payloads = await openPayloadStore({ setting: loaded.payloads });
  return createAppRuntime({ loaded, payloads, nowMs: () => Date.now() });
}

function sentWait(runtime: AppRuntime, name: string): unknown {
  const commands = settingsCommands(runtime, runtime.targets.get(name)!, '2026-01-01T00:00:00Z');
  const change = commands.find((command) => command.type === 'ChangeSettings');
  return change?.type === 'ChangeSettings' ? change.attributionWaitMs : undefined;
}

it('holds for two minutes on a target an eventHub source records, for its own wait when it names one, and never elsewhere', async () => {
  const runtime = await runtimeWith(
    [target('prod'), target('edge', { attributionWait: '30s' }), target('lab', { attributionWait: '5m' })],
    ['prod', 'edge'],
  );
  expect(runtime.targets.get('prod')?.attributionWaitMs).toBe(120_000);
  expect(runtime.targets.get('edge')?.attributionWaitMs).toBe(30_000);
  expect(runtime.targets.get('lab')?.attributionWaitMs).toBeUndefined();
  expect(sentWait(runtime, 'prod')).toBe(120_000);
  expect(sentWait(runtime, 'edge')).toBe(30_000);
  // sent as 0, so a target no longer recorded by Event Hubs stops holding
  expect(sentWait(runtime, 'lab')).toBe(0);
});

it('refuses a wait beyond ten minutes, naming the field', async () => {
  const error = await runtimeWith([target('prod', { attributionWait: '11m' })], ['prod']).catch(
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConfigInvalid);
  expect((error as ConfigInvalid).data.issues).toEqual([
    { path: 'targets[0].attributionWait', message: 'must be at most 10m' },
  ]);
});

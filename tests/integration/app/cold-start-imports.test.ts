// A cold Functions instance loads the whole app (functions/index.ts) before its first HTTP trigger
// answers: the Git executor, the Kubernetes client and the Azure SDKs must load where they are used
// (activities, a blob payload store), not with the triggers.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');

/** Every module file loaded by loading `entries` in a fresh process. */
async function loadedBy(...entries: string[]): Promise<string[]> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'loaded-modules.ts'), ...entries],
    { cwd: ROOT },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as string[];
}

const HEAVY = {
  'isomorphic-git': '/node_modules/isomorphic-git/',
  '@kubernetes/client-node': '/node_modules/@kubernetes/client-node/',
  '@azure/storage-blob': '/node_modules/@azure/storage-blob/',
  '@azure/identity': '/node_modules/@azure/identity/',
  'the Git executor': '/shared/git/publish.',
};

function heavyAmong(files: string[]): string[] {
  return Object.entries(HEAVY)
    .filter(([, marker]) => files.some((file) => file.includes(marker)))
    .map(([name]) => name);
}

describe('cold start', () => {
  it('the HTTP triggers load neither Git, nor the Kubernetes client, nor the Azure SDKs', async () => {
    expect(heavyAmong(await loadedBy('functions/http/routes.ts'))).toEqual([]);
  }, 60_000);

  it('the whole app, as a cold instance loads it, loads none of them either', async () => {
    const files = await loadedBy('functions/index.ts');
    expect(files.some((file) => file.includes('/functions/activities/publish.'))).toBe(true);
    expect(heavyAmong(files)).toEqual([]);
  }, 60_000);

  it('the check sees each of them when they are loaded', async () => {
    const files = await loadedBy(
      'shared/app/activities/publish.ts',
      '@kubernetes/client-node',
      '@azure/storage-blob',
      '@azure/identity',
    );
    expect(heavyAmong(files)).toEqual(Object.keys(HEAVY));
  }, 60_000);
});

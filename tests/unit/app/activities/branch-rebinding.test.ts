// A target whose repository URL changed while its old branch still owes work: the old branch's
// activities never reach the new repository by the old name; the old URL kept under another name
// lets them publish where the work was admitted.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPublish } from '../../../../shared/app/activities/publish';
import { runReadRemote } from '../../../../shared/app/activities/read-remote';
import { type AppRuntime, createAppRuntime } from '../../../../shared/app/runtime/app-runtime';
import { branchKeyFor } from '../../../../shared/app/runtime/branch-key';
import { loadConfig } from '../../../../shared/config';
import { openPayloadStore } from '../../../../shared/payloads';
import { createBareRepo } from '../../../support/git/create-bare-repo';
import { runGit } from '../../../support/git/run-git';

let root: string;
let oldUrl: string;
let newUrl: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ks-rebind-'));
  oldUrl = await createBareRepo({ root, name: 'old.git', files: { 'README.md': 'old\n' } });
  newUrl = await createBareRepo({ root, name: 'new.git', files: { 'README.md': 'new\n' } });
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

async function runtimeWith(repositories: { name: string; url: string }[]): Promise<AppRuntime> {
  const config = {
    repositories,
    targets: [{ name: 'prod', repository: 'state', branch: 'main', path: '.' }],
    server: { auth: 'disabled' },
  };
  const loaded = await loadConfig({
    env: { KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config), KUBESCRIBE_DATA: join(root, 'data') },
    readFile: (path) => readFile(path, 'utf8'),
  });
  const payloads = await openPayloadStore({ setting: loaded.payloads });
  return createAppRuntime({ loaded, payloads, nowMs: () => Date.now() });
}

/** The driver the old configuration started: repository "state" at the old URL. */
const oldDriver = () => ({
  branchKey: branchKeyFor(oldUrl, 'main').key,
  repository: 'state',
  branch: 'main',
});

const headOf = (gitdir: string) => runGit({ args: ['--git-dir', gitdir, 'rev-parse', 'main'] });

describe('a branch whose repository URL changed under its name', () => {
  it('is held: its publication is rejected with the reason, before any Git call or state read', async () => {
    const runtime = await runtimeWith([{ name: 'state', url: newUrl }]);
    const warnings: string[] = [];
    const readBranch = jest.fn(async () => undefined);
    const result = await runPublish(
      runtime,
      { ...oldDriver(), attempt: 'a-1' },
      {
        env: { KUBESCRIBE_GIT_CACHE: join(root, 'cache') },
        readBranch,
        warn: (message) => warnings.push(message),
      },
    );
    expect(result).toEqual({
      outcome: 'rejected',
      cause: {
        message: expect.stringMatching(
          /branch "main" \(b-[0-9a-f]+\) is held: repository "state" now points at .*new/,
        ),
      },
    });
    expect(readBranch).not.toHaveBeenCalled();
    expect(warnings).toEqual([expect.stringContaining('is held')]);
  });

  it("reads no head of the new repository as the old branch's base", async () => {
    const runtime = await runtimeWith([{ name: 'state', url: newUrl }]);
    const answer = await runReadRemote(runtime, { ...oldDriver(), ref: 'main' });
    expect(answer).toEqual({ found: false, cause: expect.stringContaining('is held') });
  });

  it('is held too when its repository is no longer configured at all', async () => {
    const runtime = await runtimeWith([{ name: 'state', url: newUrl }]);
    const driver = { ...oldDriver(), repository: 'gone' };
    const answer = await runReadRemote(runtime, { ...driver, ref: 'main' });
    expect(answer).toEqual({
      found: false,
      cause: expect.stringContaining('repository "gone" is no longer configured'),
    });
  });

  it('reaches the old repository again once its URL is configured under another name', async () => {
    const runtime = await runtimeWith([
      { name: 'state', url: newUrl },
      { name: 'state-before-move', url: oldUrl },
    ]);
    const answer = await runReadRemote(runtime, { ...oldDriver(), ref: 'main' });
    expect(answer).toEqual({ found: true, head: await headOf(oldUrl) });
  });

  it('keeps publishing a branch whose repository only changed its spelling', async () => {
    const runtime = await runtimeWith([{ name: 'state', url: `${oldUrl}/` }]);
    const answer = await runReadRemote(runtime, { ...oldDriver(), ref: 'main' });
    expect(answer).toEqual({ found: true, head: await headOf(oldUrl) });
  });
});

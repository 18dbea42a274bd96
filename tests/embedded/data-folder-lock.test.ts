// One host per data folder: a second host on the same folder refuses to start while the first
// lives; a lock left by a process that is gone (a crash) is taken over; a stopped host gives it back.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataFolderInUse, lockDataFolder } from '../../embedded/data-lock';
import { startHost } from '../../embedded/host';

const APP = require.resolve('../support/embedded/sample-app');
let dataDir: string;
let other: ChildProcess | undefined;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ks-lock-'));
});
afterEach(() => {
  other?.kill('SIGKILL');
  other = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

/** A live process that is not this one: the "first host" of the folder. */
function anotherProcess(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
}

/** The pid of a process that has already exited: a host that crashed. */
async function goneProcessPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

it('given the folder held by another live process when a host starts then it refuses, naming the process and KUBESCRIBE_DATA', async () => {
  other = anotherProcess();
  writeFileSync(join(dataDir, 'host.lock'), `${other.pid} token\n`);
  const error = await startHost({ appEntry: APP, dataDir, port: 0 }).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(DataFolderInUse);
  expect((error as Error).message).toBe(
    `the data folder ${dataDir} is in use by another kubescribe host (process ${other.pid}): stop that one, or give this one another folder with KUBESCRIBE_DATA`,
  );
  expect(existsSync(join(dataDir, 'host.sqlite'))).toBe(false);
});

it('given a lock left by a process that is gone when a host starts then it takes the folder over, and gives it back on stop', async () => {
  writeFileSync(join(dataDir, 'host.lock'), `${await goneProcessPid()} token\n`);
  const host = await startHost({ appEntry: APP, dataDir, port: 0, logger: () => {} });
  expect(() => lockDataFolder(dataDir, { pid: process.pid + 1, isAlive: () => true })).toThrow(
    DataFolderInUse,
  );
  await host.stop();
  expect(existsSync(join(dataDir, 'host.lock'))).toBe(false);
  lockDataFolder(dataDir).release();
});

it('given a port already in use when a host starts then it fails and leaves the folder free', async () => {
  const first = await startHost({ appEntry: APP, dataDir: join(dataDir, 'a'), port: 0, logger: () => {} });
  try {
    const port = Number(new URL(first.url).port);
    const error = await startHost({
      appEntry: APP,
      dataDir: join(dataDir, 'b'),
      port,
      logger: () => {},
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'EADDRINUSE' });
    expect(existsSync(join(dataDir, 'b', 'host.lock'))).toBe(false);
  } finally {
    await first.stop();
  }
});

import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Another live host holds the data folder: two hosts on one store would run the same work twice. */
export class DataFolderInUse extends Error {
  readonly code = 'DataFolderInUse';

  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the data folder ${dataDir} is in use by another kubescribe host (process ${pid}): stop that one, or give this one another folder with KUBESCRIBE_DATA`,
    );
    this.name = 'DataFolderInUse';
  }
}

/** A held lock on a data folder; `release` removes it only while it is still this holder's. */
export interface DataFolderLock {
  release(): void;
}

const LOCK_FILE = 'host.lock';

/**
 * The data folder holds every accepted change, its payloads and the durable state: only this user
 * may list or read it (0700), also when an earlier release created it open. A folder this user does
 * not own (a volume's root, whose group the kubelet sets) keeps its mode: the files in it are 0600.
 */
function keepPrivate(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/**
 * Takes the data folder for this host: `host.lock` holds the process id and a token. A lock left by
 * a process that is gone (a crash, a kill) is taken over; so is one of this same process, whose
 * earlier host can no longer run (a container restarted under the same pid, or a test's host
 * abandoned mid-run). Throws {@link DataFolderInUse} while another live process holds it.
 * @param isAlive whether a process id is running (for tests; the default asks the OS).
 */
export function lockDataFolder(
  dataDir: string,
  { pid = process.pid, isAlive = processIsAlive }: { pid?: number; isAlive?: (pid: number) => boolean } = {},
): DataFolderLock {
  keepPrivate(dataDir);
  const path = join(dataDir, LOCK_FILE);
  const content = `${pid} ${randomUUID()}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, content, { flag: 'wx', mode: 0o600 });
      return {
        release() {
          if (readLock(path) === content) rmSync(path, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readLock(path) ?? '', 10);
    if (Number.isInteger(holder) && holder !== pid && isAlive(holder))
      throw new DataFolderInUse(dataDir, holder);
    rmSync(path, { force: true });
  }
  // Two hosts starting at once both found the stale lock; the other one took it.
  const holder = Number.parseInt(readLock(path) ?? '', 10);
  throw new DataFolderInUse(dataDir, Number.isInteger(holder) ? holder : 0);
}

function readLock(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

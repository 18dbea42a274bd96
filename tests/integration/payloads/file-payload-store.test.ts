import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFilePayloadStore, PayloadCorrupt, type PayloadStore } from '../../../shared/payloads';
import { describePayloadStoreContract } from './payload-store-contract';

let folder: string;
let store: PayloadStore;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'kubescribe-payloads-'));
  store = createFilePayloadStore({ folder });
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

describePayloadStoreContract('file store', () => store);

describe('file store on disk', () => {
  it('given a stored payload when the same bytes are stored again then there is still one file and no temporary file', async () => {
    const own = await mkdtemp(join(tmpdir(), 'kubescribe-payloads-'));
    try {
      const local = createFilePayloadStore({ folder: own });
      await local.put('once');
      await local.put('once');
      const files = await filesUnder(own);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/sha256\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('given a payload file altered on disk when read then it is refused as corrupt', async () => {
    const ref = await store.put('original content');
    const digest = ref.slice('sha256:'.length);
    await writeFile(join(folder, 'sha256', digest.slice(0, 2), digest), 'tampered content');
    await expect(store.get(ref)).rejects.toBeInstanceOf(PayloadCorrupt);
  });

  it('given a writer killed at a random moment when the folder is read then every payload present is whole', async () => {
    const own = await mkdtemp(join(tmpdir(), 'kubescribe-crash-'));
    try {
      // One node process with tsx's loader (the tsx CLI would fork a grandchild that SIGKILL misses).
      const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'crash-writer.ts'), own], {
        cwd: join(__dirname, '../../..'),
        stdio: 'ignore',
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        // Bounded poll for a real child process: wait until it has completed a few payloads.
        const deadline = Date.now() + 30_000;
        while ((await filesUnder(own)).filter((file) => !file.endsWith('.tmp')).length < 3) {
          if (Date.now() > deadline) throw new Error('the writer stored nothing within 30s');
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      } finally {
        child.kill('SIGKILL');
        await exited;
      }

      const local = createFilePayloadStore({ folder: own });
      const files = await filesUnder(own);
      const payloads = files.filter((file) => !file.endsWith('.tmp'));
      expect(payloads.length).toBeGreaterThanOrEqual(3);
      for (const file of payloads) {
        const ref = `sha256:${file.slice(-64)}`;
        const bytes = await local.get(ref);
        expect(bytes.length).toBe(16 * 1024 * 1024);
      }
      for (const temporary of files.filter((file) => file.endsWith('.tmp'))) {
        expect(await local.has(`sha256:${temporary.split('/').pop()?.slice(1, 65)}`)).toBe(false);
      }
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  it('given a payload when stored then the bytes on disk are exactly the payload', async () => {
    const ref = await store.put('exact bytes');
    const digest = ref.slice('sha256:'.length);
    expect(await readFile(join(folder, 'sha256', digest.slice(0, 2), digest), 'utf8')).toBe('exact bytes');
  });
});

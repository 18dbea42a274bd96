// Publishes to one branch in a process of its own (argv[2] = JSON { url, cacheDir, files }: one
// publication changing that many files), then prints what forgetting the branch's kept read cache
// let go of: the memory test measures in a heap that only this publication used.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { compactionSettled } from '../../../shared/git/compact-object-cache';
import { forgetReadCache } from '../../../shared/git/kept-read-cache';
import { pushAnswersRead } from '../../../shared/git/open-http-session';
import { publish } from '../../../shared/git/publish';
import { aWrite } from '../../support/git/a-write';
import { incompressibleFiles } from '../../support/git/incompressible-files';
import { settledHeldBytes } from '../../support/held-bytes';

const input = z
  .object({ url: z.string(), cacheDir: z.string(), files: z.number().int().positive() })
  .parse(JSON.parse(process.argv[2] ?? '{}'));

async function main(): Promise<void> {
  const { kind } = await publish({
    remote: { kind: 'http', url: input.url },
    branch: 'main',
    // each process counts its writes' ids from one: this one's is named for what it changes
    writes: [aWrite({ id: `change-${input.files}-files`, files: incompressibleFiles(input.files) })],
    cacheDir: input.cacheDir,
  });
  // the rest of the push's answer is read after the publication returns: not what is measured
  await pushAnswersRead();
  const [name] = readdirSync(input.cacheDir);
  const withCache = await settledHeldBytes();
  forgetReadCache(join(input.cacheDir, name!));
  const kept = withCache - (await settledHeldBytes());
  // the cache's merge, run after a publication returns, ends before the test counts the packs
  await compactionSettled(join(input.cacheDir, name!));
  process.stdout.write(`${JSON.stringify({ kind, kept })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});

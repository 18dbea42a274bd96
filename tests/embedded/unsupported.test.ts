jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../../embedded/host';

it('given an app with a timer at a time of day, when the host loads it, then it fails fast naming the schedule and the function', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-host-'));
  try {
    await expect(
      startHost({
        appEntry: require.resolve('../support/embedded/unsupported-app'),
        dataDir,
        port: 0,
        logger: () => {},
      }),
    ).rejects.toThrow('function "Nightly" has "0 0 0 * * *"');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

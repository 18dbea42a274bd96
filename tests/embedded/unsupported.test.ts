jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost } from '../../embedded/host';

it('given an app with a timer trigger, when the host loads it, then it fails fast naming the trigger and the function', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubescribe-host-'));
  try {
    await expect(
      startHost({
        appEntry: require.resolve('../support/embedded/unsupported-app'),
        dataDir,
        port: 0,
        logger: () => {},
      }),
    ).rejects.toThrow('The embedded host does not support the "timerTrigger" trigger of function "Nightly"');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

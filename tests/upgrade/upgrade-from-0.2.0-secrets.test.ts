// 0.2.0 held Secret payloads without the `# kubescribe-data-key: v1 …` line that later releases add
// (docs/secrets.md, "Rotating recipients"): the current code publishes the Secret as it was held,
// decryptable with the 0.2.0-era key, never in plaintext, counted and logged as `kept`
// (tests/fixtures/upgrade/0.2.0-secrets, made by `generate-fixture.sh 0.2.0 7f04960 secrets`).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { SECRET_FILE } from './secrets-scenario';
import { secretsUpgradeFrom } from './secrets-upgrade-from';

secretsUpgradeFrom('0.2.0', {
  heldDataKey: false,
  commit: 'erin|[UPDATE] v1/secrets/db',
  counts: { kept: 1, rewrapped: 0 },
  keptLog: `${SECRET_FILE} stays encrypted for its earlier recipients`,
});

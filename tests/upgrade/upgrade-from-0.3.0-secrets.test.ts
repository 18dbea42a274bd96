// 0.3.0 held Secret payloads with their data key wrapped on a `# kubescribe-data-key: v1 …` comment
// line (docs/secrets.md, "Rotating recipients"): the current code publishes the Secret once, the
// line never in Git; its recipients did not change, so nothing is kept as held or re-wrapped
// (tests/fixtures/upgrade/0.3.0-secrets, made by `generate-fixture.sh 0.3.0 d0e18c0 secrets`).
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { secretsUpgradeFrom } from './secrets-upgrade-from';

secretsUpgradeFrom('0.3.0', {
  heldDataKey: true,
  commit: 'erin|[CREATE] v1/secrets shop/db',
  counts: { kept: 0, rewrapped: 0 },
});

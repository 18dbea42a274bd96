jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { upgradeFrom } from './upgrade-from';

upgradeFrom('0.3.0');

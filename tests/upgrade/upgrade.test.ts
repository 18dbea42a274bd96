// Every release has its upgrade fixture and its upgrade test (upgrade-from-<version>.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UPGRADE_FIXTURES } from './upgrade-from';

const releases = readdirSync(UPGRADE_FIXTURES).sort();

it('has a fixture for every release up to this one, each with its upgrade test', () => {
  const version = (
    JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
  ).version;
  expect(releases).toEqual(expect.arrayContaining(['0.1.0', version]));
  for (const release of releases)
    expect(existsSync(join(__dirname, `upgrade-from-${release}.test.ts`))).toBe(true);
});

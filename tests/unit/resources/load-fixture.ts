import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** Reads one of the project's own fixtures (tests/fixtures/…), YAML or JSON, as a fresh object. */
export function loadFixture(relativePath: string): unknown {
  return parse(readFileSync(join(__dirname, '../../fixtures', relativePath), 'utf8'));
}

/** The fixture's raw text, for checking that a value never leaves it. */
export function fixtureText(relativePath: string): string {
  return readFileSync(join(__dirname, '../../fixtures', relativePath), 'utf8');
}

// jest's globalSetup for `npm run test:browser`: Debian's Chromium, installed when missing, and a
// clean folder for the screenshots the tests leave (tests/artifacts/, not committed).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { installTools } from './install-test-tools';

export default function installBrowser(): void {
  installTools({ chromium: 'chromium' });
  mkdirSync(join(__dirname, '..', 'artifacts'), { recursive: true });
}

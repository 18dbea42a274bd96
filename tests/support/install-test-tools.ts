// jest's globalSetup: the tools the tests run besides Node, installed when missing, so that
// `npm install && npm test` works on a fresh machine of this project's kind (root, Debian packages).
import { execFileSync } from 'node:child_process';

/** Debian packages the tests use, by the command each provides (kubectl renders deploy/'s kustomizations). */
const TOOLS: Record<string, string> = { age: 'age', kubectl: 'kubectl' };

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export default function installTestTools(): void {
  installTools(TOOLS);
}

/** Installs the Debian package of each command in `tools` (command → package) that is missing. */
export function installTools(tools: Record<string, string>): void {
  const missing = Object.entries(tools).filter(([command]) => !has(command));
  if (missing.length === 0) return;
  const packages = missing.map(([, name]) => name);
  const install = () =>
    execFileSync('apt-get', ['install', '-y', '-qq', ...packages], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    install();
  }
}

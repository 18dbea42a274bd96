// jest's globalSetup: the tools the tests run besides Node (age, kubectl, gpg, ssh-keygen, PyYAML), installed when
// missing, so that `npm install && npm test` works on a fresh machine of this project's kind (root,
// Debian packages).
import { execFileSync } from 'node:child_process';
import { DEBIAN_PYTHON } from './pyyaml';

/**
 * Debian packages the tests use, by the command each provides (kubectl renders deploy/'s
 * kustomizations; gpg and ssh-keygen make signing keys and verify signed commits).
 */
const TOOLS: Record<string, string> = {
  age: 'age',
  kubectl: 'kubectl',
  gpg: 'gnupg',
  'ssh-keygen': 'openssh-client',
};

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Python modules the tests run under Debian's python3 (PyYAML reads what kubescribe writes as YAML
 * 1.1 readers do: tests/support/pyyaml.ts), by module → package.
 */
const PYTHON_MODULES: Record<string, string> = { yaml: 'python3-yaml' };

export default function installTestTools(): void {
  installTools(TOOLS);
  installPackages(
    Object.entries(PYTHON_MODULES)
      .filter(([module]) => !hasPythonModule(module))
      .map(([, name]) => name),
  );
}

function hasPythonModule(module: string): boolean {
  try {
    execFileSync(DEBIAN_PYTHON, ['-c', `import ${module}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Installs the Debian package of each command in `tools` (command → package) that is missing. */
export function installTools(tools: Record<string, string>): void {
  installPackages(
    Object.entries(tools)
      .filter(([command]) => !has(command))
      .map(([, name]) => name),
  );
}

/** Installs Debian packages with apt-get, updating its lists once when an install fails. */
function installPackages(packages: string[]): void {
  if (packages.length === 0) return;
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

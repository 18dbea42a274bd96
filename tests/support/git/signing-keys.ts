// Signing keys made by the real tools users make them with (`ssh-keygen`, GnuPG's `gpg`), and the
// check a user runs on a signed commit: `git verify-commit`, with `gpg.ssh.allowedSignersFile` for
// SSH signatures (git-config(1), "gpg.ssh.allowedSignersFile") and a GnuPG home holding the key for
// OpenPGP ones.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type SigningKit = {
  format: 'ssh' | 'openpgp';
  /** The private key as kubescribe is given it (a variable's value, a file's content). */
  privateKey: string;
  committer: { name: string; email: string };
  /** Lines of the private key's text: none may appear in anything kubescribe wrote. */
  secretFragments: string[];
  /** `git verify-commit <sha>` in `gitDir`: whether it verified, and what it said. */
  verify(gitDir: string, sha: string): Promise<{ verified: boolean; output: string }>;
  cleanup(): void;
};

function fragmentsOf(privateKey: string): string[] {
  return privateKey
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length >= 16 && !line.startsWith('-----'));
}

function run(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? -1, output: Buffer.concat(output).toString('utf8') }),
    );
  });
}

const GIT_ENV = { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/** An Ed25519 or RSA key from `ssh-keygen`, and an allowed signers file naming the committer for namespace `git`. */
export function newSshSigningKit(
  type: 'ed25519' | 'rsa' = 'ed25519',
  committer = { name: 'kubescribe', email: 'kubescribe@example.com' },
): SigningKit {
  const dir = mkdtempSync(join(tmpdir(), 'ks-ssh-key-'));
  const file = join(dir, `id_${type}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', committer.email, '-f', file]);
  const allowed = join(dir, 'allowed_signers');
  writeFileSync(allowed, `${committer.email} namespaces="git" ${readFileSync(`${file}.pub`, 'utf8')}`);
  const privateKey = readFileSync(file, 'utf8');
  return {
    format: 'ssh',
    privateKey,
    committer,
    secretFragments: fragmentsOf(privateKey),
    async verify(gitDir, sha) {
      const { code, output } = await run(
        'git',
        ['--git-dir', gitDir, '-c', `gpg.ssh.allowedSignersFile=${allowed}`, 'verify-commit', '--raw', sha],
        GIT_ENV,
      );
      return { verified: code === 0, output };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * An Ed25519 (GnuPG's default) or RSA signing key made by `gpg --quick-gen-key` without a
 * passphrase, exported armored as a user would hand it to kubescribe; its GnuPG home verifies.
 */
export function newOpenPgpSigningKit(
  algorithm: 'ed25519' | 'rsa3072' = 'ed25519',
  committer = { name: 'kubescribe', email: 'kubescribe@example.com' },
): SigningKit {
  const home = mkdtempSync(join(tmpdir(), 'ks-gnupg-'));
  const env = { GNUPGHOME: home };
  const gpg = (...args: string[]) =>
    execFileSync('gpg', ['--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  gpg('--quick-gen-key', `${committer.name} <${committer.email}>`, algorithm, 'sign', 'never');
  const privateKey = gpg('--armor', '--export-secret-keys', committer.email).toString('utf8');
  return {
    format: 'openpgp',
    privateKey,
    committer,
    secretFragments: fragmentsOf(privateKey),
    async verify(gitDir, sha) {
      const { code, output } = await run('git', ['--git-dir', gitDir, 'verify-commit', '--raw', sha], {
        ...GIT_ENV,
        ...env,
      });
      return { verified: code === 0, output };
    },
    cleanup() {
      try {
        execFileSync('gpgconf', ['--kill', 'gpg-agent'], {
          env: { ...process.env, ...env },
          stdio: 'ignore',
        });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}

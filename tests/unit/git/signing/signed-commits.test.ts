// A commit kubescribe builds and signs, checked by `git verify-commit` as a user or a host would:
// SSH signatures (openssh's PROTOCOL.sshsig, verified by `ssh-keygen -Y verify` through git) and
// OpenPGP ones (RFC 9580 v4 signatures, verified by GnuPG through git), with keys made by the
// real tools. A commit whose bytes no longer match its signature must fail the same check.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { findLandedWrites } from '../../../../shared/git/find-landed-writes';
import { formatCommit } from '../../../../shared/git/format-commit';
import { CommitSigner, SigningKeyInvalid } from '../../../../shared/git/signing/commit-signer';
import { signCommit } from '../../../../shared/git/signing/sign-commit';
import { runGit } from '../../../support/git/run-git';
import { newOpenPgpSigningKit, newSshSigningKit, type SigningKit } from '../../../support/git/signing-keys';

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const kits: [string, () => SigningKit][] = [
  ['SSH Ed25519', () => newSshSigningKit('ed25519')],
  ['SSH RSA', () => newSshSigningKit('rsa')],
  ['OpenPGP Ed25519', () => newOpenPgpSigningKit('ed25519')],
  ['OpenPGP RSA', () => newOpenPgpSigningKit('rsa3072')],
];

let gitDir: string;
beforeAll(async () => {
  gitDir = join(mkdtempSync(join(tmpdir(), 'ks-signed-')), 'repo.git');
  await runGit({ args: ['init', '-q', '--bare', gitDir] });
});
afterAll(() => rmSync(join(gitDir, '..'), { recursive: true, force: true }));

function commitBy(kit: SigningKit, writeId: string, message = 'Update shop/configmaps/app'): Buffer {
  const who = { ...kit.committer, timestamp: 1_767_000_000, timezoneOffset: 0 };
  return formatCommit({ tree: EMPTY_TREE, parent: null, author: who, committer: who, message, writeId });
}

const store = (bytes: Buffer) =>
  runGit({ args: ['--git-dir', gitDir, 'hash-object', '-t', 'commit', '-w', '--stdin'], input: bytes });

describe.each(kits)('a commit signed with an %s key', (_name, makeKit) => {
  let kit: SigningKit;
  let signer: CommitSigner;
  beforeAll(() => {
    kit = makeKit();
    signer = CommitSigner.of(kit.format, kit.privateKey);
  });
  afterAll(() => kit.cleanup());

  it('is verified by git verify-commit, and the same commit signs to the same bytes', async () => {
    const signed = signCommit(commitBy(kit, 'w-1'), signer);
    const result = await kit.verify(gitDir, await store(signed));
    expect(result.output).toMatch(kit.format === 'ssh' ? /Good "git" signature/ : /GOODSIG/);
    expect(result.verified).toBe(true);
    expect(signCommit(commitBy(kit, 'w-1'), signer).equals(signed)).toBe(true);
  });

  it('fails git verify-commit once its message is changed under the signature', async () => {
    const signed = signCommit(commitBy(kit, 'w-2'), signer).toString('utf8');
    const tampered = signed.replace('Update shop/configmaps/app', 'Update shop/configmaps/evil');
    expect(tampered).not.toBe(signed);
    const result = await kit.verify(gitDir, await store(Buffer.from(tampered)));
    expect(result.verified).toBe(false);
  });

  it('keeps its write trailer findable: settlement reads it back from the repository', async () => {
    const sha = await store(signCommit(commitBy(kit, 'w-settled'), signer));
    const landed = await findLandedWrites({
      gitdir: gitDir,
      head: sha,
      writeIds: ['w-settled', 'w-other'],
      depth: 5,
      cache: {},
      committer: `${kit.committer.name} <${kit.committer.email}>`,
    });
    expect([...landed]).toEqual([['w-settled', sha]]);
  });
});

describe('a key kubescribe cannot sign with', () => {
  it('is refused with the reason, never quoting the key: one protected by a passphrase', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ks-ssh-pass-'));
    try {
      const kit = newSshSigningKit('ed25519');
      const protectedKey = join(dir, 'key');
      writeFileSync(protectedKey, kit.privateKey, { mode: 0o600 });
      execFileSync('ssh-keygen', ['-q', '-p', '-P', '', '-N', 'hunter22', '-f', protectedKey]);
      const text = readFileSync(protectedKey, 'utf8');
      kit.cleanup();
      expect(() => CommitSigner.of('ssh', text)).toThrow(SigningKeyInvalid);
      expect(() => CommitSigner.of('ssh', text)).toThrow(/passphrase/);
      const message = (() => {
        try {
          CommitSigner.of('ssh', text);
          return '';
        } catch (error) {
          return (error as Error).message;
        }
      })();
      for (const line of text.split('\n').filter((l) => l.length > 16)) expect(message).not.toContain(line);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is refused when the format is wrong for it: an SSH key given as OpenPGP', () => {
    const kit = newSshSigningKit('ed25519');
    try {
      expect(() => CommitSigner.of('openpgp', kit.privateKey)).toThrow(/not an armored OpenPGP secret key/);
    } finally {
      kit.cleanup();
    }
  });

  it('is refused, saying so, when its text was cut short (a variable truncated on its way)', () => {
    const kit = newSshSigningKit('ed25519');
    try {
      const lines = kit.privateKey.trimEnd().split('\n');
      const cut = [...lines.slice(0, 3), lines.at(-1)!].join('\n');
      expect(() => CommitSigner.of('ssh', cut)).toThrow(new SigningKeyInvalid('ends before its fields do'));
    } finally {
      kit.cleanup();
    }
  });

  it('vouches only for its own user IDs when the export holds several keys', () => {
    const home = mkdtempSync(join(tmpdir(), 'ks-gnupg-two-'));
    const gpg = (...args: string[]) =>
      execFileSync(
        'gpg',
        ['--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', ...args],
        {
          env: { ...process.env, GNUPGHOME: home },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
    try {
      gpg('--quick-gen-key', 'first <first@example.com>', 'ed25519', 'sign', 'never');
      gpg('--quick-gen-key', 'second <second@example.com>', 'ed25519', 'sign', 'never');
      const both = gpg(
        '--armor',
        '--export-secret-keys',
        'first@example.com',
        'second@example.com',
      ).toString();
      expect(CommitSigner.of('openpgp', both).identities).toEqual(['first@example.com']);
    } finally {
      execFileSync('gpgconf', ['--kill', 'gpg-agent'], {
        env: { ...process.env, GNUPGHOME: home },
        stdio: 'ignore',
      });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('prints as a placeholder in JSON and inspection', () => {
    const kit = newSshSigningKit('ed25519');
    try {
      const signer = CommitSigner.of('ssh', kit.privateKey);
      const shown = `${JSON.stringify({ signer })} ${inspect({ signer })} ${String(signer)}`;
      for (const fragment of kit.secretFragments) expect(shown).not.toContain(fragment);
      expect(shown).toContain('[signing key]');
    } finally {
      kit.cleanup();
    }
  });
});

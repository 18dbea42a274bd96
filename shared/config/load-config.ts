import { createPrivateKey } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml, YAMLError } from 'yaml';
import { CommitSigner, SigningKeyInvalid } from '../git/signing/commit-signer';
import { encryptionProblem } from '../secrets/encryption-problem';
import { defaultConfigFile } from './default-config';
import {
  ConfigInvalid,
  ConfigSecretMissing,
  ConfigUnreadable,
  type MissingVariable,
  SettingsInvalid,
} from './errors';
import { toConfigIssues } from './issues';
import { type PayloadsSetting, parsePayloadsSetting } from './payloads-setting';
import { configFileSchema, isRemoteUrl, type KubescribeConfig } from './schema';
import { Secret } from './secret';

/** Where the configuration came from. */
export type ConfigOrigin = { kind: 'file'; file: string } | { kind: 'content' } | { kind: 'default' };

/** The configuration's origin as errors and the start banner name it. */
export function describeConfigOrigin(origin: ConfigOrigin): string {
  if (origin.kind === 'file') return origin.file;
  return origin.kind === 'content' ? 'KUBESCRIBE_CONFIG_CONTENT' : 'the default configuration';
}

/** The secrets the configuration names, resolved from the environment. */
export type ConfigSecrets = {
  /** Git token per repository name, for repositories with a static `auth` naming a `tokenEnv` (a `tokenFile` is read at each call). */
  repositoryTokens: Record<string, Secret>;
  /** A GitHub App's private key (PEM) per repository name, for repositories with `auth.kind: github-app`. */
  repositoryAppKeys?: Record<string, Secret>;
  /** The commit signer per repository name, for repositories with `signing` (docs/signing.md). */
  repositorySigners?: Record<string, CommitSigner>;
  /** Bearer token per source name. */
  sourceTokens: Record<string, Secret>;
  /** Kubeconfig per source name, for sources with `kubeconfigEnv`. */
  sourceKubeconfigs: Record<string, Secret>;
  /** The encryption's derivation key per target name, for targets with `encryption` (docs/secrets.md). */
  encryptionKeys?: Record<string, Secret>;
  /**
   * Why a target's `encryption` cannot be used, per target name: that target refuses Secrets and
   * shows the reason in its status; the app and the other targets run (docs/secrets.md).
   */
  encryptionProblems?: Record<string, string>;
};

/** Everything the app settings contract yields at start-up. */
export type LoadedConfig = {
  config: KubescribeConfig;
  secrets: ConfigSecrets;
  /** Where the configuration came from: `KUBESCRIBE_CONFIG` (a file), `KUBESCRIBE_CONFIG_CONTENT`, or the default. */
  origin: ConfigOrigin;
  /** The embedded host's data folder (absolute). */
  dataDir: string;
  payloads: PayloadsSetting;
};

type Env = Record<string, string | undefined>;

/** An encryption key's least length: 32 random characters (`openssl rand -base64 32` gives 44). */
const MIN_ENCRYPTION_KEY_CHARS = 32;

/**
 * Implements the app settings contract: reads the configuration from the file named by
 * `KUBESCRIBE_CONFIG` or from `KUBESCRIBE_CONFIG_CONTENT` (YAML or JSON; both set is an error), else
 * uses the default; applies `PORT`; resolves `KUBESCRIBE_DATA` and `KUBESCRIBE_PAYLOADS`; reads every
 * `tokenEnv` from the environment. Throws `ConfigInvalid` (issues with field paths),
 * `ConfigSecretMissing` (names the variable, never a value), `ConfigUnreadable` or `SettingsInvalid`.
 * @param readFile reads the configuration file as UTF-8 text.
 * @param cwd resolves relative paths of settings; relative repository paths in a file resolve
 *   against the file's folder.
 */
export async function loadConfig({
  env,
  readFile,
  cwd = process.cwd(),
}: {
  env: Env;
  readFile: (path: string) => Promise<string>;
  cwd?: string;
}): Promise<LoadedConfig> {
  const file = nonEmpty(env.KUBESCRIBE_CONFIG);
  const content = nonEmpty(env.KUBESCRIBE_CONFIG_CONTENT);
  if (file !== undefined && content !== undefined) {
    throw new SettingsInvalid(['KUBESCRIBE_CONFIG', 'KUBESCRIBE_CONFIG_CONTENT'], 'set only one of them');
  }
  const dataDir = resolve(cwd, nonEmpty(env.KUBESCRIBE_DATA) ?? '.kubescribe');

  let raw: unknown;
  let origin: LoadedConfig['origin'];
  let baseDir = cwd;
  if (file !== undefined) {
    const path = resolve(cwd, file);
    let text: string;
    try {
      text = await readFile(path);
    } catch (error) {
      throw new ConfigUnreadable(path, (error as NodeJS.ErrnoException).code ?? 'read failed');
    }
    raw = parseText(text, path);
    origin = { kind: 'file', file: path };
    baseDir = dirname(path);
  } else if (content !== undefined) {
    raw = parseText(content, 'KUBESCRIBE_CONFIG_CONTENT');
    origin = { kind: 'content' };
  } else {
    raw = defaultConfigFile({ dataDir });
    origin = { kind: 'default' };
  }

  const sourceName = describeConfigOrigin(origin);
  const parsed = configFileSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigInvalid(sourceName, toConfigIssues(parsed.error));
  const config = parsed.data;

  for (const repository of config.repositories) {
    if (!isRemoteUrl(repository.url) && !isAbsolute(repository.url)) {
      repository.url = resolve(baseDir, repository.url);
    }
    if (repository.auth?.kind === 'static' && repository.auth.tokenFile !== undefined) {
      repository.auth.tokenFile = resolve(baseDir, repository.auth.tokenFile);
    }
    if (repository.signing?.keyFile !== undefined)
      repository.signing.keyFile = resolve(baseDir, repository.signing.keyFile);
  }
  const port = nonEmpty(env.PORT);
  if (port !== undefined) {
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
      throw new SettingsInvalid(['PORT'], 'must be a port number between 0 and 65535');
    }
    config.server.port = Number(port);
  }

  const missing: MissingVariable[] = [];
  const secrets = resolveSecrets(config, env, missing);
  secrets.repositorySigners = await resolveSigners(config, env, readFile, missing, sourceName);
  let payloads: PayloadsSetting | undefined;
  try {
    payloads = parsePayloadsSetting({ env, dataDir, cwd });
  } catch (error) {
    if (!(error instanceof ConfigSecretMissing)) throw error;
    missing.push(...error.data.missing);
  }
  if (missing.length > 0 || payloads === undefined) throw new ConfigSecretMissing(missing);
  return { config, secrets, origin, dataDir, payloads };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function parseText(text: string, source: string): unknown {
  try {
    // JSON is YAML 1.2, so one parser reads both; duplicate keys are refused rather than guessed.
    return parseYaml(text, { uniqueKeys: true });
  } catch (error) {
    if (!(error instanceof YAMLError)) throw error;
    // The parser's reason without its excerpt of the text: the excerpt could hold a pasted secret.
    const reason = error.message.split(' at line ')[0]?.trim() ?? error.code;
    const position = error.linePos?.[0];
    const where = position ? ` (line ${position.line}, column ${position.col})` : '';
    throw new ConfigInvalid(source, [{ path: '', message: `is not valid YAML or JSON: ${reason}${where}` }]);
  }
}

/**
 * Reads each repository's signing key (from its variable or file) into a signer, checked now rather
 * than at the first commit: a key kubescribe cannot use, or an OpenPGP key whose user IDs do not
 * name the committer (hosts would not show its commits as verified), stops the start with the field
 * that names it. An unset variable is added to `missing`.
 */
async function resolveSigners(
  config: KubescribeConfig,
  env: Env,
  readFile: (path: string) => Promise<string>,
  missing: MissingVariable[],
  /** Where the configuration came from: what an issue in the configuration itself names. */
  sourceName: string,
): Promise<Record<string, CommitSigner>> {
  const signers: Record<string, CommitSigner> = {};
  for (const [index, repository] of config.repositories.entries()) {
    const signing = repository.signing;
    if (!signing) continue;
    const where = `repositories[${index}].signing`;
    const usedBy = signing.keyEnv !== undefined ? `${where}.keyEnv` : `${where}.keyFile`;
    let keyText: string;
    if (signing.keyEnv !== undefined) {
      const value = env[signing.keyEnv];
      if (value === undefined || value === '') {
        missing.push({ variable: signing.keyEnv, usedBy });
        continue;
      }
      keyText = value;
    } else {
      try {
        keyText = await readFile(signing.keyFile!);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'read failed';
        throw new ConfigInvalid(sourceName, [
          { path: usedBy, message: `names a file that cannot be read (${code})` },
        ]);
      }
    }
    let signer: CommitSigner;
    try {
      signer = CommitSigner.of(signing.format, keyText);
    } catch (error) {
      if (!(error instanceof SigningKeyInvalid)) throw error;
      throw new ConfigInvalid(signing.keyEnv !== undefined ? 'the environment' : sourceName, [
        {
          path: usedBy,
          message: `holds a key that cannot sign ${signing.format} commits: it ${error.message}`,
        },
      ]);
    }
    const email = repository.committer.email.toLowerCase();
    if (signing.format === 'openpgp' && !signer.identities.some((id) => id.toLowerCase() === email)) {
      throw new ConfigInvalid(sourceName, [
        {
          path: `repositories[${index}].committer.email`,
          message: `is not an identity of the signing key (its user IDs name ${signer.identities.join(', ') || 'no email'}): hosts would not show its commits as verified`,
        },
      ]);
    }
    signers[repository.name] = signer;
  }
  return signers;
}

/**
 * Reads every secret the configuration names; each unset variable is added to `missing` (and its
 * secret left out) so that all of them are reported together.
 */
function resolveSecrets(config: KubescribeConfig, env: Env, missing: MissingVariable[]): ConfigSecrets {
  const read = (variable: string, usedBy: string): Secret => {
    const value = env[variable];
    if (value === undefined || value === '') missing.push({ variable, usedBy });
    return new Secret(value ?? '');
  };
  const repositoryTokens: Record<string, Secret> = {};
  const repositoryAppKeys: Record<string, Secret> = {};
  config.repositories.forEach((repository, index) => {
    if (repository.auth?.kind === 'static' && repository.auth.tokenEnv !== undefined) {
      repositoryTokens[repository.name] = read(
        repository.auth.tokenEnv,
        `repositories[${index}].auth.tokenEnv`,
      );
    }
    if (repository.auth?.kind === 'github-app') {
      const usedBy = `repositories[${index}].auth.privateKeyEnv`;
      // GitHub's "Generate a private key" file as it is: a PEM; checked now, not at the first push
      const key = read(repository.auth.privateKeyEnv, usedBy);
      try {
        if (key.reveal() !== '') createPrivateKey(key.reveal());
      } catch {
        throw new ConfigInvalid('the environment', [
          {
            path: usedBy,
            message: 'names a variable that does not hold a PEM private key (the GitHub App key file)',
          },
        ]);
      }
      repositoryAppKeys[repository.name] = key;
    }
  });
  const sourceTokens: Record<string, Secret> = {};
  const sourceKubeconfigs: Record<string, Secret> = {};
  config.sources.forEach((source, index) => {
    if (source.kind !== 'webhook') return;
    sourceTokens[source.name] = read(source.tokenEnv, `sources[${index}].tokenEnv`);
    if (source.kubeconfigEnv) {
      sourceKubeconfigs[source.name] = read(source.kubeconfigEnv, `sources[${index}].kubeconfigEnv`);
    }
  });
  const encryptionKeys: Record<string, Secret> = {};
  const encryptionProblems: Record<string, string> = {};
  config.targets.forEach((target, index) => {
    if (!target.encryption) return;
    const where = `targets[${index}].encryption`;
    const value = env[target.encryption.keyEnv];
    const problem =
      encryptionProblem(target.encryption.age.recipients, `${where}.age.recipients`) ??
      (value === undefined || value === ''
        ? `${where}.keyEnv names the variable ${target.encryption.keyEnv}, which is not set`
        : value.length < MIN_ENCRYPTION_KEY_CHARS
          ? `${where}.keyEnv names a variable holding fewer than ${MIN_ENCRYPTION_KEY_CHARS} characters`
          : undefined);
    if (problem) encryptionProblems[target.name] = problem;
    else encryptionKeys[target.name] = new Secret(value!);
  });
  return {
    repositoryTokens,
    repositoryAppKeys,
    sourceTokens,
    sourceKubeconfigs,
    encryptionKeys,
    encryptionProblems,
  };
}

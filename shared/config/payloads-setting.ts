import { isAbsolute, join, resolve } from 'node:path';
import { ConfigSecretMissing, SettingsInvalid } from './errors';
import { isEnvVarName } from './names';
import { Secret } from './secret';

/** Where payloads go, from `KUBESCRIBE_PAYLOADS`. */
export type PayloadsSetting =
  | { kind: 'file'; folder: string }
  | { kind: 'blob'; containerUrl: string }
  | { kind: 'blob-connection'; variable: string; connectionString: Secret; container: string };

/** The container used with `blob-connection:` when the variable names no container of its own. */
export const DEFAULT_PAYLOAD_CONTAINER = 'kubescribe-payloads';

/**
 * Parses `KUBESCRIBE_PAYLOADS`: `file:<folder>` (default `file:<dataDir>/payloads`),
 * `blob:<container URL>` (managed identity) or `blob-connection:<VAR>[/<container>]` (a connection
 * string held in VAR, e.g. Azurite's). The connection string is resolved here and kept as a Secret.
 * @param dataDir absolute data folder; a relative `file:` folder is resolved against `cwd`.
 */
export function parsePayloadsSetting({
  env,
  dataDir,
  cwd = process.cwd(),
}: {
  env: Record<string, string | undefined>;
  dataDir: string;
  cwd?: string;
}): PayloadsSetting {
  const value = env.KUBESCRIBE_PAYLOADS;
  if (value === undefined || value === '') return { kind: 'file', folder: join(dataDir, 'payloads') };
  const refuse = (reason: string) => new SettingsInvalid(['KUBESCRIBE_PAYLOADS'], reason);
  if (value.startsWith('file:')) {
    const folder = value.slice('file:'.length);
    if (folder === '') throw refuse('file: needs a folder, e.g. file:/var/lib/kubescribe/payloads');
    return { kind: 'file', folder: isAbsolute(folder) ? folder : resolve(cwd, folder) };
  }
  if (value.startsWith('blob:')) {
    const containerUrl = value.slice('blob:'.length);
    let url: URL;
    try {
      url = new URL(containerUrl);
    } catch {
      throw refuse('blob: needs a container URL, e.g. blob:https://account.blob.core.windows.net/payloads');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw refuse('blob: needs an http(s) container URL');
    // A SAS token in the URL would be a secret in a plain setting; managed identity needs none.
    if (url.search !== '' || url.username !== '' || url.password !== '') {
      throw refuse(
        'blob: URL must not carry credentials or a query; use managed identity or blob-connection:',
      );
    }
    if (url.pathname.split('/').filter(Boolean).length < 1) throw refuse('blob: URL must name a container');
    return { kind: 'blob', containerUrl: url.toString().replace(/\/$/, '') };
  }
  if (value.startsWith('blob-connection:')) {
    const [variable = '', container = DEFAULT_PAYLOAD_CONTAINER, ...rest] = value
      .slice('blob-connection:'.length)
      .split('/');
    if (!isEnvVarName(variable) || rest.length > 0 || !/^[a-z0-9](-?[a-z0-9]){2,62}$/.test(container)) {
      throw refuse('blob-connection: needs an environment variable name, optionally /<container>');
    }
    const connectionString = env[variable];
    if (connectionString === undefined || connectionString === '') {
      throw new ConfigSecretMissing([{ variable, usedBy: 'KUBESCRIBE_PAYLOADS' }]);
    }
    return { kind: 'blob-connection', variable, connectionString: new Secret(connectionString), container };
  }
  throw refuse('must start with file:, blob: or blob-connection:');
}

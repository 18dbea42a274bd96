import { resolve } from 'node:path';
import { ConfigUnreadable, SettingsInvalid } from './errors';

/** The embedded host's certificate and key (PEM), from `KUBESCRIBE_TLS_CERT_FILE` and `KUBESCRIBE_TLS_KEY_FILE`. */
export type TlsSetting = { cert: string; key: string };

/**
 * Reads the certificate (chain) and key the embedded host serves HTTPS with: both variables or
 * neither (then the host serves plain HTTP). Admission webhooks and the forwarder talk HTTPS only,
 * so a host reached from a cluster needs them, or a TLS-terminating proxy in front.
 * Throws `SettingsInvalid` when only one is set and `ConfigUnreadable` when a file cannot be read.
 */
export async function readTlsSetting({
  env,
  readFile,
  cwd = process.cwd(),
}: {
  env: Record<string, string | undefined>;
  readFile: (path: string) => Promise<string>;
  cwd?: string;
}): Promise<TlsSetting | undefined> {
  const certFile = env.KUBESCRIBE_TLS_CERT_FILE || undefined;
  const keyFile = env.KUBESCRIBE_TLS_KEY_FILE || undefined;
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) {
    throw new SettingsInvalid(
      ['KUBESCRIBE_TLS_CERT_FILE', 'KUBESCRIBE_TLS_KEY_FILE'],
      'set both (a certificate and its key, PEM) or neither',
    );
  }
  const read = async (file: string): Promise<string> => {
    const path = resolve(cwd, file);
    try {
      return await readFile(path);
    } catch (error) {
      throw new ConfigUnreadable(path, (error as NodeJS.ErrnoException).code ?? 'read failed');
    }
  };
  return { cert: await read(certFile), key: await read(keyFile) };
}

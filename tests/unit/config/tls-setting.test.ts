import { ConfigUnreadable, readTlsSetting, SettingsInvalid } from '../../../shared/config';

const files: Record<string, string> = { '/etc/tls/tls.crt': 'CERT PEM', '/etc/tls/tls.key': 'KEY PEM' };
const readFile = async (path: string): Promise<string> => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
  return text;
};

describe('readTlsSetting', () => {
  it('serves plain HTTP when neither variable is set', async () => {
    await expect(readTlsSetting({ env: {}, readFile })).resolves.toBeUndefined();
  });

  it('reads the certificate and the key, relative paths against cwd', async () => {
    await expect(
      readTlsSetting({
        env: { KUBESCRIBE_TLS_CERT_FILE: '/etc/tls/tls.crt', KUBESCRIBE_TLS_KEY_FILE: 'tls.key' },
        readFile,
        cwd: '/etc/tls',
      }),
    ).resolves.toEqual({ cert: 'CERT PEM', key: 'KEY PEM' });
  });

  it('refuses one variable without the other, naming both', async () => {
    const refused = readTlsSetting({ env: { KUBESCRIBE_TLS_CERT_FILE: '/etc/tls/tls.crt' }, readFile });
    await expect(refused).rejects.toBeInstanceOf(SettingsInvalid);
    await expect(refused).rejects.toThrow(/KUBESCRIBE_TLS_KEY_FILE/);
  });

  it('names a file it cannot read', async () => {
    const refused = readTlsSetting({
      env: { KUBESCRIBE_TLS_CERT_FILE: '/etc/tls/tls.crt', KUBESCRIBE_TLS_KEY_FILE: '/etc/tls/missing.key' },
      readFile,
    });
    await expect(refused).rejects.toBeInstanceOf(ConfigUnreadable);
    await expect(refused).rejects.toThrow(/missing\.key/);
  });
});

import { ConfigSecretMissing, parsePayloadsSetting, SettingsInvalid } from '../../../shared/config';

const dataDir = '/var/lib/ks';

describe('the payload store setting (KUBESCRIBE_PAYLOADS)', () => {
  it('given no setting when parsed then payloads go to the data folder', () => {
    expect(parsePayloadsSetting({ env: {}, dataDir })).toEqual({
      kind: 'file',
      folder: '/var/lib/ks/payloads',
    });
  });

  it('given a relative file folder when parsed then it resolves against the working folder', () => {
    expect(
      parsePayloadsSetting({ env: { KUBESCRIBE_PAYLOADS: 'file:data/p' }, dataDir, cwd: '/srv' }),
    ).toEqual({
      kind: 'file',
      folder: '/srv/data/p',
    });
  });

  it('given a container URL when parsed then managed identity is used for it', () => {
    expect(
      parsePayloadsSetting({
        env: { KUBESCRIBE_PAYLOADS: 'blob:https://acct.blob.core.windows.net/payloads/' },
        dataDir,
      }),
    ).toEqual({ kind: 'blob', containerUrl: 'https://acct.blob.core.windows.net/payloads' });
  });

  it('given a container URL carrying a SAS token when parsed then it is refused', () => {
    expect(() =>
      parsePayloadsSetting({
        env: { KUBESCRIBE_PAYLOADS: 'blob:https://acct.blob.core.windows.net/p?sig=abc' },
        dataDir,
      }),
    ).toThrow(SettingsInvalid);
  });

  it('given a connection-string variable when parsed then the string is read and kept secret', () => {
    const setting = parsePayloadsSetting({
      env: { KUBESCRIBE_PAYLOADS: 'blob-connection:AZURITE/payloads', AZURITE: 'UseDevelopmentStorage=true' },
      dataDir,
    });
    expect(setting).toMatchObject({ kind: 'blob-connection', variable: 'AZURITE', container: 'payloads' });
    expect(setting.kind === 'blob-connection' && setting.connectionString.reveal()).toBe(
      'UseDevelopmentStorage=true',
    );
    expect(JSON.stringify(setting)).not.toContain('UseDevelopmentStorage');
  });

  it('given a connection-string variable that is unset when parsed then start-up is refused naming it', () => {
    expect(() =>
      parsePayloadsSetting({ env: { KUBESCRIBE_PAYLOADS: 'blob-connection:AZURITE' }, dataDir }),
    ).toThrow(ConfigSecretMissing);
  });

  it.each(['s3://bucket', 'file:', 'blob:not a url', 'blob-connection:1BAD'])(
    'given %p when parsed then it is refused naming the setting',
    (value) => {
      expect(() => parsePayloadsSetting({ env: { KUBESCRIBE_PAYLOADS: value }, dataDir })).toThrow(
        expect.objectContaining({
          code: SettingsInvalid.code,
          data: expect.objectContaining({ settings: ['KUBESCRIBE_PAYLOADS'] }),
        }),
      );
    },
  );
});

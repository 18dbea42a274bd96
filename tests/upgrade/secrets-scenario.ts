// What the Secrets upgrade fixtures hold: a target with age encryption, and one Secret accepted while
// Git is down, so a release stores it as a held write (release-secrets-scenario.ts) that the current
// code publishes (upgrade-from-0.2.0-secrets.test.ts).

/** The scenario's fixture of `release`: tests/fixtures/upgrade/<release>-secrets. */
export const secretsFixture = (release: string) => `${release}-secrets`;

/** The age identity (made by `age-keygen` when the fixture is made), kept beside the data folder. */
export const AGE_IDENTITY_FILE = 'age-identity.txt';

export const KEY_ENV = 'KS_SOPS_KEY';
export const DERIVATION_KEY = 'an-upgrade-derivation-key-of-forty-chars';

export const PASSWORD = 'upgrade-plaintext-never-at-rest-4e1b7d';
const b64 = (text: string) => Buffer.from(text).toString('base64');
/** Every form in which the Secret's values must never be found at rest. */
export const PLAINTEXTS = [PASSWORD, b64(PASSWORD)];
export const SECRET_DATA = { password: b64(PASSWORD), username: b64('admin') };
export const SECRET_FILE = 'clusters/prod/shop/secrets/db.sops.yaml';

export function encryptedTarget(recipient: string): Record<string, unknown> {
  return { encryption: { age: { recipients: [recipient] }, keyEnv: KEY_ENV } };
}

export const secretEvents = {
  events: [
    {
      type: 'ADDED',
      resource: 'secrets',
      author: { username: 'erin' },
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'db',
          namespace: 'shop',
          creationTimestamp: '2025-01-02T03:04:05Z',
          managedFields: [{ manager: 'kubectl', operation: 'Update', time: '2025-02-03T04:05:06Z' }],
        },
        type: 'Opaque',
        data: SECRET_DATA,
      },
    },
  ],
};

import {
  normalizeAuditEvents,
  normalizeSnapshot,
  normalizeWatchEvents,
  PayloadInvalid,
} from '../../../shared/resources';
import { fixtureText, loadFixture } from './load-fixture';

const target = { path: '.' };
const SECRET_VALUES = ['persisted-secret-never-store', 'cGVyc2lzdGVkLXNlY3JldC1uZXZlci1zdG9yZQ=='];

function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadInvalid);
    return `${JSON.stringify(error)} ${(error as Error).message}`;
  }
}

describe('Secrets are refused visibly and their data goes nowhere', () => {
  it('given a persisted Secret patch when normalized then it is ignored with a reason that names the kind, not the data', () => {
    const fixture = 'audit/secret-persisted-patch.yaml';
    expect(fixtureText(fixture)).toContain(SECRET_VALUES[0]);
    const result = normalizeAuditEvents({ body: loadFixture(fixture), target });
    expect(result.changes).toEqual([]);
    expect(result.ignored).toEqual([
      {
        reason: 'sensitive-resource',
        message: expect.stringContaining('not recorded'),
        index: 0,
        identity: { group: '', resource: 'secrets', namespace: 'shop', name: 'db-credentials' },
      },
    ]);
    for (const value of SECRET_VALUES) expect(JSON.stringify(result)).not.toContain(value);
  });

  it('given a Secret posted under another resource name when normalized then its kind still refuses it', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'shop' },
      data: { p: SECRET_VALUES[1] },
    };
    const result = normalizeWatchEvents({
      body: { events: [{ type: 'ADDED', resource: 'configmaps', object: secret }] },
      target,
    });
    expect(result.changes).toEqual([]);
    expect(result.ignored).toEqual([expect.objectContaining({ reason: 'sensitive-resource' })]);
  });

  it('given a deleted Secret when normalized then nothing is recorded for it either', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' } };
    const result = normalizeWatchEvents({
      body: { events: [{ type: 'DELETED', resource: 'secrets', object: secret }] },
      target,
    });
    expect(result).toEqual({
      changes: [],
      ignored: [expect.objectContaining({ reason: 'sensitive-resource' })],
    });
  });

  it.each([
    [
      'a malformed Secret in a watch event',
      () =>
        normalizeWatchEvents({
          body: {
            events: [
              {
                type: 'ADDED',
                resource: 'secrets',
                object: {
                  apiVersion: 'v1',
                  kind: 'Secret',
                  metadata: { name: 'db/../x', labels: { a: 1 } },
                  data: { p: SECRET_VALUES[1] },
                  stringData: { p: SECRET_VALUES[0] },
                },
              },
            ],
          },
          target,
        }),
    ],
    [
      'a Secret with an extra envelope key',
      () =>
        normalizeWatchEvents({
          body: {
            events: [
              {
                type: 'ADDED',
                resource: 'secrets',
                extra: SECRET_VALUES[0],
                object: {
                  apiVersion: 'v1',
                  kind: 'Secret',
                  metadata: { name: 'db' },
                  data: { p: SECRET_VALUES[1] },
                },
              },
            ],
          },
          target,
        }),
    ],
    [
      'a Secret in a snapshot outside its scope',
      () =>
        normalizeSnapshot({
          body: {
            scope: { namespace: 'prod' },
            revision: '1',
            objects: [
              {
                resource: 'secrets',
                object: {
                  apiVersion: 'v1',
                  kind: 'Secret',
                  metadata: { name: 'db', namespace: 'dev' },
                  data: { p: SECRET_VALUES[1] },
                },
              },
            ],
          },
          target,
        }),
    ],
  ])('given %s when refused then the error carries no Secret data', (_, run) => {
    const text = outcome(run);
    expect(text).toContain('PayloadInvalid');
    for (const value of SECRET_VALUES) expect(text).not.toContain(value);
  });
});

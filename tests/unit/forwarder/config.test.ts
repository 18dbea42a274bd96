import { parseForwarderConfig } from '../../../shared/forwarder/config';
import { ForwarderConfigInvalid } from '../../../shared/forwarder/errors';
import { watchScopes } from '../../../shared/forwarder/scopes';

const minimal = `
kubescribe: { url: "http://127.0.0.1:7071", target: prod, tokenEnv: KUBESCRIBE_TOKEN }
resources:
  - { group: apps, version: v1, resource: deployments }
  - { group: "", version: v1, resource: namespaces, clusterScoped: true }
namespaces: [prod, staging]
`;

describe('the forwarder configuration', () => {
  it('fills in the batch, snapshot and cursor defaults', () => {
    const config = parseForwarderConfig(minimal);
    expect(config.batch).toEqual({ maxEvents: 200, maxBytes: 4 * 1024 * 1024, maxDelay: 1000 });
    expect(config.snapshot).toEqual({ partObjects: 500, partBytes: 4 * 1024 * 1024, listPageSize: 500 });
    expect(config.exclude.fieldManagers).toEqual([]);
    expect(config.cursorFile).toBe('.kubescribe-forwarder/cursors.json');
  });

  it('watches each namespaced type once per namespace and a cluster-scoped type cluster-wide', () => {
    expect(watchScopes(parseForwarderConfig(minimal))).toEqual([
      { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'prod' },
      { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'staging' },
      { group: '', version: 'v1', resource: 'namespaces', namespace: undefined },
    ]);
  });

  it('reads Go-style durations for the batch delay', () => {
    expect(parseForwarderConfig(`${minimal}batch: { maxDelay: 1m30s }`).batch.maxDelay).toBe(90_000);
  });

  it('refuses an unknown key, a kind instead of a plural resource, and a token in the file, naming each path', () => {
    const bad = `
kubescribe: { url: "http://127.0.0.1:7071", target: prod, token: abc }
resources: [{ group: apps, version: v1, resource: Deployment }]
`;
    expect(() => parseForwarderConfig(bad)).toThrow(ForwarderConfigInvalid);
    try {
      parseForwarderConfig(bad);
    } catch (error) {
      const paths = (error as ForwarderConfigInvalid).data.issues.map((issue) => issue.path);
      expect(paths).toEqual(expect.arrayContaining(['kubescribe', 'resources[0].resource']));
      expect((error as Error).message).not.toContain('abc');
      // as the service words its own: one issue a line, a field path, no schema wording
      expect((error as Error).message).toContain('\n  kubescribe: has a field it does not know: "token"');
      expect((error as Error).message).not.toMatch(/Unrecognized key|received undefined/);
    }
  });

  it('names a missing field as required, not as a type', () => {
    expect(() => parseForwarderConfig('kubescribe: { target: prod }\nresources: []\n')).toThrow(
      /\n {2}kubescribe\.url: is required \(string\)/,
    );
  });

  it('refuses a token for a plain http webhook on another host, naming the url', () => {
    const remote = minimal.replace('http://127.0.0.1:7071', 'http://kubescribe.example.com');
    expect(() => parseForwarderConfig(remote)).toThrow(ForwarderConfigInvalid);
    try {
      parseForwarderConfig(remote);
    } catch (error) {
      expect((error as ForwarderConfigInvalid).data.issues).toEqual([
        { path: 'kubescribe.url', message: expect.stringContaining('https://') },
      ]);
    }
  });

  it('sends a token over https, or over http to this machine only, and no token anywhere', () => {
    const https = minimal.replace('http://127.0.0.1:7071', 'https://kubescribe.example.com');
    expect(parseForwarderConfig(https).kubescribe.url).toBe('https://kubescribe.example.com');
    const local = minimal.replace('http://127.0.0.1:7071', 'http://localhost:7071');
    expect(parseForwarderConfig(local).kubescribe.url).toBe('http://localhost:7071');
    const anonymous = minimal
      .replace('http://127.0.0.1:7071', 'http://kubescribe.example.com')
      .replace(', tokenEnv: KUBESCRIBE_TOKEN', '');
    expect(parseForwarderConfig(anonymous).kubescribe.url).toBe('http://kubescribe.example.com');
  });
});

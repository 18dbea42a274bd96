// Commits as a reader of the repository sees them, end to end on the embedded host: the author is
// the person or controller the configured `authors` mapping names, and a grouped commit's body
// lists each object it changed, above the trailer lost-reply settlement finds it by.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';

let app: AppHost;
let remote: string;

const configMap = (namespace: string, name: string, value: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { value },
});
const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'shop' },
  spec: { replicas: 2 },
});

/** Watch events as the forwarder posts them, by one Kubernetes user. */
const post = (events: object[], user: { username: string; groups?: string[] }) =>
  app.http('POST', '/api/v1/targets/prod/events', {
    events: events.map((event) => ({ ...event, author: user })),
  });
const headMessage = async () => (await git(remote, 'log', '-1', '--format=%B', 'main')).replace(/\n+$/, '\n');
const headAuthor = async () => (await git(remote, 'log', '-1', '--format=%an <%ae>', 'main')).trim();

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-authors-')), 'state.git'));
  const config = {
    ...oneTargetConfig({ url: remote, limits: { pushCooldown: '0s' } }),
    authors: {
      emailDomain: 'users.noreply.acme.com',
      rules: [
        { usernamePattern: 'oidc:(?<user>[a-z]+)\\.(?<last>[a-z]+)', email: '$<user>.$<last>@acme.com' },
        { username: 'oidc:jane.doe', name: 'Jane Doe' },
        { group: 'release-bots', name: 'Release bot', email: 'releases@acme.com' },
      ],
    },
  };
  app = await startAppHost(config);
});

afterAll(async () => {
  await app?.stop();
});

describe('commit authors and the objects a commit lists', () => {
  it('commits a grouped window as the mapped author, listing each object it changed', async () => {
    const jane = { username: 'oidc:jane.doe', groups: ['system:authenticated'] };
    await post(
      [
        { type: 'ADDED', resource: 'configmaps', object: configMap('shop', 'settings', '1') },
        { type: 'ADDED', resource: 'configmaps', object: configMap('billing', 'settings', '1') },
      ],
      jane,
    );
    await app.advance(10_000);
    expect(await headAuthor()).toBe('Jane Doe <jane.doe@acme.com>');

    await post(
      [
        { type: 'MODIFIED', resource: 'configmaps', object: configMap('shop', 'settings', '2') },
        { type: 'ADDED', resource: 'deployments', object: deployment('web') },
        { type: 'DELETED', resource: 'configmaps', object: configMap('billing', 'settings', '1') },
      ],
      jane,
    );
    await app.advance(10_000);
    const message = await headMessage();
    const writeId = /^Kubescribe-Write: (\S+)$/m.exec(message)?.[1];
    expect(message).toBe(
      [
        'oidc:jane.doe on prod: 3 resource(s)',
        '',
        'update configmaps shop/settings',
        'create deployments.apps shop/web',
        'delete configmaps billing/settings',
        '',
        `Kubescribe-Write: ${writeId}`,
        '',
      ].join('\n'),
    );
    // the trailer stays where Git's own parser (and settlement) reads it
    expect(
      await git(remote, 'log', '-1', '--format=%(trailers:key=Kubescribe-Write,valueonly)', 'main'),
    ).toBe(`${writeId}\n\n`);
  });

  it('maps by group, and names a controller’s ServiceAccount by its product in the default form', async () => {
    await post([{ type: 'ADDED', resource: 'configmaps', object: configMap('shop', 'release', '1') }], {
      username: 'ci-runner-7',
      groups: ['release-bots'],
    });
    await app.advance(10_000);
    expect(await headAuthor()).toBe('Release bot <releases@acme.com>');

    await post(
      [
        {
          type: 'MODIFIED',
          resource: 'deployments',
          object: { ...deployment('web'), spec: { replicas: 3 } },
        },
      ],
      { username: 'system:serviceaccount:flux-system:kustomize-controller' },
    );
    await app.advance(10_000);
    expect(await headAuthor()).toBe(
      'Flux (flux-system/kustomize-controller) <system-serviceaccount-flux-system-kustomize-controller@users.noreply.acme.com>',
    );
    await git(remote, 'fsck', '--strict');
  });
});

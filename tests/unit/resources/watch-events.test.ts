import { normalizeWatchEvents, PayloadInvalid } from '../../../shared/resources';
import { loadFixture } from './load-fixture';

const target = { path: '.' };

function refusal(body: unknown): PayloadInvalid {
  try {
    normalizeWatchEvents({ body, target });
  } catch (error) {
    expect(error).toBeInstanceOf(PayloadInvalid);
    return error as PayloadInvalid;
  }
  throw new Error('expected the events body to be refused');
}

const configMap = (name: string, namespace = 'shop') => ({
  type: 'ADDED',
  resource: 'configmaps',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 'b' } },
});

describe('watch events from a forwarder', () => {
  const { changes, ignored } = normalizeWatchEvents({ body: loadFixture('watch/events.json'), target });

  it('given ADDED, MODIFIED and DELETED events when normalized then they upsert and delete at root-target paths', () => {
    expect(ignored).toEqual([]);
    expect(changes.map((change) => [change.operation, change.path, change.resourceVersion])).toEqual([
      ['upsert', 'shop/apps/deployments/checkout.yaml', '5001'],
      ['upsert', '_cluster/namespaces/shop.yaml', '12'],
      ['delete', 'shop/configmaps/old-settings.yaml', '5020'],
      ['delete', 'shop/persistentvolumeclaims/data.yaml', '5021'],
    ]);
  });

  it('given ADDED, MODIFIED and DELETED events when normalized then only the ADDED ones are marked created', () => {
    expect(changes.map((change) => change.created)).toEqual([true, undefined, undefined, undefined]);
  });

  it('given an event with an author when normalized then the change carries that author', () => {
    expect(changes[0]?.author).toEqual({
      username: 'alice@example.com',
      uid: '7d1e-alice',
      groups: ['developers'],
    });
  });

  it('given an event without an author when normalized then the change has none, so the committer is used', () => {
    expect(changes[1]).not.toHaveProperty('author');
  });

  it('given a DELETED event when normalized then the delete carries no content', () => {
    expect(changes[2]).not.toHaveProperty('content');
    expect(changes[2]?.identity).toEqual({
      group: '',
      version: 'v1',
      resource: 'configmaps',
      kind: 'ConfigMap',
      namespace: 'shop',
      name: 'old-settings',
    });
  });

  it('given a MODIFIED object carrying a deletionTimestamp when normalized then it counts as a delete', () => {
    expect(changes[3]?.operation).toBe('delete');
  });

  it('given a Deployment whose keys arrive in another order when normalized then its YAML is sorted the same way', () => {
    expect(changes[0]?.content).toBe(
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata:',
        '  name: checkout',
        '  namespace: shop',
        '  labels:',
        '    app: checkout',
        'spec:',
        '  replicas: 2',
        '  selector:',
        '    matchLabels:',
        '      app: checkout',
        '  template:',
        '    metadata:',
        '      labels:',
        '        app: checkout',
        '    spec:',
        '      containers:',
        '        - image: registry.example.com/checkout:1.4.2',
        '          name: checkout',
        '',
      ].join('\n'),
    );
  });

  it('given an empty list when normalized then nothing happens', () => {
    expect(normalizeWatchEvents({ body: { events: [] }, target })).toEqual({ changes: [], ignored: [] });
  });

  it.each([
    ['..', 'events[0].object.metadata.name'],
    ['a/b', 'events[0].object.metadata.name'],
    ['/etc/passwd', 'events[0].object.metadata.name'],
    ['Upper', 'events[0].object.metadata.name'],
    ['', 'events[0].object.metadata.name'],
  ])('given the object name %p when normalized then the body is refused at %p', (name, path) => {
    expect(refusal({ events: [configMap(name)] }).data.issues.map((issue) => issue.path)).toEqual([path]);
  });

  it.each(['..', 'a/b', 'kube_system'])(
    'given the namespace %p when normalized then the body is refused',
    (namespace) => {
      expect(refusal({ events: [configMap('ok', namespace)] }).data.issues).toEqual([
        { path: 'events[0].object.metadata.namespace', message: expect.stringContaining('namespace') },
      ]);
    },
  );

  it('given a path trick in the resource name when normalized then the body is refused', () => {
    expect(
      refusal({ events: [{ ...configMap('ok'), resource: '../secrets' }] }).data.issues.map((i) => i.path),
    ).toEqual(['events[0].resource']);
  });

  it('given one bad event among good ones when normalized then nothing is accepted', () => {
    const error = refusal({ events: [configMap('good'), { ...configMap('also-good'), type: 'BOOKMARK' }] });
    expect(error.data.issues.map((issue) => issue.path)).toEqual(['events[1].type']);
  });

  it('given an unknown envelope key when normalized then it is refused rather than silently dropped', () => {
    expect(refusal({ events: [], cluster: 'x' }).data.issues).toEqual([
      { path: '', message: expect.stringContaining('cluster') },
    ]);
  });

  it('given an apiVersion with too many slashes when normalized then it is refused', () => {
    const event = configMap('ok');
    event.object.apiVersion = 'a/b/v1';
    expect(refusal({ events: [event] }).data.issues.map((issue) => issue.path)).toEqual([
      'events[0].object.apiVersion',
    ]);
  });
});

// Selectors evaluated as k8s.io/apimachinery evaluates them (pkg/labels/selector.go
// `Requirement.Matches`: `notin` and `!=` match an object without the label; pkg/fields: only
// `=`, `==` and `!=`), and a replica count set in a held file exactly as rendering would give it.
import { renderYaml, sanitizeObject } from '../../../shared/resources';
import { heldFileSelected, withReplicas } from '../../../shared/resources/scoped-changes';
import { readSelectors } from '../../../shared/resources/selectors';

const bytes = (text: string) => new TextEncoder().encode(text);

function held(labels: Record<string, string>, name = 'web') {
  return bytes(
    renderYaml(
      sanitizeObject({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'shop', labels },
        data: { a: '1' },
      }),
    ),
  );
}

function selected(query: string, file: Uint8Array): boolean {
  const reading = readSelectors(`/api/v1/namespaces/shop/configmaps?${query}`);
  if ('refused' in reading) throw new Error(reading.refused);
  return heldFileSelected(reading.selector, file);
}

describe('selectors over held files', () => {
  it.each([
    ['labelSelector=app%3Dweb', { app: 'web' }, true],
    ['labelSelector=app%3D%3Dweb', { app: 'api' }, false],
    ['labelSelector=app%21%3Dweb', {}, true],
    ['labelSelector=tier+notin+(a,b)', { tier: 'a' }, false],
    ['labelSelector=tier+notin+(a,b)', {}, true],
    ['labelSelector=tier+in+(a,b),app', { tier: 'b', app: 'x' }, true],
    ['labelSelector=tier+in+(a,b),app', { tier: 'b' }, false],
    ['labelSelector=%21app', { tier: 'b' }, true],
    ['labelSelector=size>3', { size: '10' }, true],
    ['labelSelector=size<3', { size: 'big' }, false],
    ['fieldSelector=metadata.name%3Dweb', {}, true],
    ['fieldSelector=metadata.name%21%3Dweb', {}, false],
    ['fieldSelector=metadata.namespace%3D%3Dshop', {}, true],
    ['', { anything: 'x' }, true],
  ])('%s selects a file labelled %j: %s', (query, labels, expected) => {
    expect(selected(query, held(labels))).toBe(expected);
  });

  it('leaves a file that is no recorded object (a hand-written note) in place', () => {
    expect(selected('labelSelector=%21app', bytes('just: [a note'))).toBe(false);
  });
});

describe('a replica count set in a held file', () => {
  const deployment = (replicas?: number) =>
    renderYaml(
      sanitizeObject({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop' },
        spec: {
          ...(replicas === undefined ? {} : { replicas }),
          selector: { matchLabels: { app: 'web' } },
          template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } },
          paused: false,
        },
      }),
    );

  it.each([
    [1, 3],
    [5, 0],
    [undefined, 2],
  ])('from %s to %s is the file rendering the object with that count gives', (from, to) => {
    expect(withReplicas(bytes(deployment(from)), to)).toBe(deployment(to));
  });

  it('as the last key of spec when every key sorts before it', () => {
    const file =
      'apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: a\nspec:\n  minReadySeconds: 1\n';
    expect(withReplicas(bytes(file), 4)).toBe(`${file}  replicas: 4\n`);
  });

  it('is not applied to a file without a spec', () => {
    expect(withReplicas(bytes('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n'), 2)).toBeUndefined();
  });
});

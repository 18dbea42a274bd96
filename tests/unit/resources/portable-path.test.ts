import fc from 'fast-check';
import { canonicalPath, describeObjectPath } from '../../../shared/resources/canonical-path';
import {
  decodeSegment,
  escapeSegment,
  PORTABLE_MAX_PATH,
  PORTABLE_MAX_TARGET_PATH,
  portableFileName,
} from '../../../shared/resources/portable-path';
import { checkoutProblem, checkoutProblems } from '../../support/paths/checkout-rules';

const path = (
  identity: { group?: string; resource: string; namespace?: string; name: string },
  targetPath = 'clusters/prod',
) =>
  canonicalPath({
    targetPath,
    identity: { group: '', ...identity },
    paths: 'portable',
  });

// RBAC names take what Kubernetes' own roles use (upper case, `:`, `@`, `_`); others are DNS names.
const RBAC = 'rbac.authorization.k8s.io';
const rbacName = fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9:._@-]{0,252}[A-Za-z0-9])?$/);

describe('portable segments', () => {
  it.each([
    ['system:aggregate-to-admin', 'system%3aaggregate-to-admin'],
    ['Admin', '%41dmin'],
    ['admin', 'admin'],
    ['con', '%63on'],
    ['AUX', '%41%55%58'],
    ['nul.example', '%6eul.example'],
    ['com1', '%63om1'],
    ['console', 'console'],
    ['ends.', 'ends%2e'],
    ['100%', '100%25'],
    ['é~', '%c3%a9%7e'],
  ])('%j is written %j and read back', (name, encoded) => {
    expect(escapeSegment(name)).toBe(encoded);
    expect(decodeSegment(encoded)).toBe(name);
  });

  it('decodes any text it encodes, and encodes no two texts alike, even with case folded', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const [ea, eb] = [escapeSegment(a), escapeSegment(b)];
        expect(decodeSegment(ea)).toBe(a);
        expect(ea).toMatch(/^[a-z0-9._%-]*$/);
        if (a !== b) expect(ea.toLowerCase()).not.toBe(eb.toLowerCase());
      }),
    );
  });
});

describe('portable canonical paths', () => {
  it('gives the names Windows and macOS refuse paths they check out, one file per object', () => {
    const paths = [
      path({ group: RBAC, resource: 'clusterroles', name: 'system:aggregate-to-admin' }),
      path({ group: RBAC, resource: 'clusterroles', name: 'Admin' }),
      path({ group: RBAC, resource: 'clusterroles', name: 'admin' }),
      path({ resource: 'configmaps', namespace: 'con', name: 'aux' }),
      path({ resource: 'namespaces', name: 'nul' }),
    ];
    expect(paths).toEqual([
      'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/system%3aaggregate-to-admin.yaml',
      'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/%41dmin.yaml',
      'clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/admin.yaml',
      'clusters/prod/%63on/configmaps/%61ux.yaml',
      'clusters/prod/_cluster/namespaces/%6eul.yaml',
    ]);
    expect(checkoutProblems(paths)).toEqual([]);
    // the same objects as native paths: the checker refuses them
    const native = paths.map((p) =>
      p.replace(/%([0-9a-f]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16))),
    );
    expect(checkoutProblems(native)).toEqual([
      expect.stringContaining('"system:aggregate-to-admin.yaml" has a character Windows refuses'),
      expect.stringContaining('"con" is a Windows device name'),
      expect.stringContaining('"nul.yaml" is a Windows device name'),
      expect.stringMatching(/clusterroles\/admin\.yaml and .*clusterroles\/Admin\.yaml are one name/),
    ]);
  });

  it('keeps every path within the limit and every segment within 255 bytes, whatever the names', () => {
    const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
    const subdomain = fc
      .array(label, { minLength: 1, maxLength: 4 })
      .map((labels) => labels.join('.'))
      .filter((text) => text.length <= 253);
    const target = fc
      .stringMatching(new RegExp(`^[a-z0-9]([a-z0-9/-]{0,${PORTABLE_MAX_TARGET_PATH - 2}}[a-z0-9])?$`))
      .filter((text) =>
        text.split('/').every((segment) => segment !== '' && escapeSegment(segment) === segment),
      );
    fc.assert(
      fc.property(
        target,
        label,
        subdomain,
        label,
        rbacName,
        fc.boolean(),
        (t, namespace, group, resource, name, rbac) => {
          const written = path(
            { group: rbac ? RBAC : group, resource, namespace, name: rbac ? name : group },
            t,
          );
          expect(written.length).toBeLessThanOrEqual(PORTABLE_MAX_PATH);
          expect(checkoutProblem(written)).toBeUndefined();
        },
      ),
    );
  });

  it('shortens the 651-character path of the longest names to fit', () => {
    const long = (c: string, n: number) => c.repeat(n);
    const nativePath = canonicalPath({
      targetPath: 'clusters/prod',
      identity: {
        group: `${long('g', 62)}.${long('h', 62)}.${long('i', 62)}.${long('j', 62)}`,
        resource: long('r', 63),
        namespace: long('n', 63),
        name: long('x', 253),
      },
    });
    expect(nativePath.length).toBeGreaterThan(500);
    const written = path({
      group: `${long('g', 62)}.${long('h', 62)}.${long('i', 62)}.${long('j', 62)}`,
      resource: long('r', 63),
      namespace: long('n', 63),
      name: long('x', 253),
    });
    expect(written.length).toBeLessThanOrEqual(PORTABLE_MAX_PATH);
    expect(checkoutProblem(written)).toBeUndefined();
    expect(written).toMatch(
      /^clusters\/prod\/n+~[0-9a-f]{32}\/g+~[0-9a-f]{32}\/r+~[0-9a-f]{32}\/x+~[0-9a-f]{32}\.yaml$/,
    );
  });

  it('cuts a shortened name between escapes, so its kept start still reads as text', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('a', 'B', ':', '@', '_', '.', '-', '0'), { minLength: 60, maxLength: 251 })
          .map((characters) => `a${characters.join('')}z`),
        fc.integer({ min: 100, max: 170 }),
        (name, folder) => {
          const file = portableFileName(name, '.yaml', folder);
          expect(folder + 1 + file.length).toBeLessThanOrEqual(PORTABLE_MAX_PATH);
          const kept = file.includes('~') ? file.split('~')[0]! : file.slice(0, -'.yaml'.length);
          expect(() => decodeURIComponent(kept)).not.toThrow();
          expect(name.startsWith(decodeURIComponent(kept))).toBe(true);
        },
      ),
    );
  });

  it('names the object a portable path holds in a commit body', () => {
    expect(
      describeObjectPath('_cluster/rbac.authorization.k8s.io/clusterroles/system%3aaggregate-to-admin.yaml'),
    ).toBe('clusterroles.rbac.authorization.k8s.io system:aggregate-to-admin');
    expect(describeObjectPath('%63on/configmaps/%61ux.yaml')).toBe('configmaps con/aux');
  });

  it('leaves native paths as every earlier release wrote them', () => {
    expect(
      canonicalPath({
        targetPath: 'clusters/prod',
        identity: { group: RBAC, resource: 'clusterroles', name: 'system:admin' },
      }),
    ).toBe('clusters/prod/_cluster/rbac.authorization.k8s.io/clusterroles/system:admin.yaml');
  });
});

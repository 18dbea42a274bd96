// docs/payloads.md "Verbs and subresources" is the table of what each audited verb and subresource
// becomes: it must list exactly the rules of shared/resources/recorded-requests.ts, and the audit
// normalizer must do what each row says. Subresource events are shaped as the apiserver's
// RequestInfo names them (k8s.io/apiserver pkg/endpoints/request/requestinfo.go): the parent in
// objectRef, the subresource beside it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { normalizeAuditEvents } from '../../shared/resources';
import { SUBRESOURCE_RULES, VERB_RULES } from '../../shared/resources/recorded-requests';

const page = readFileSync(join(__dirname, '..', '..', 'docs', 'payloads.md'), 'utf8');
const section = page.slice(page.indexOf('### Verbs and subresources'));
const rows = [...section.matchAll(/^\| (verb|subresource) `([a-z]+)` +\| (yes|no) +\| (.+?) +\|$/gm)].map(
  ([, what, name, recorded, how]) => ({ what, name, recorded: recorded === 'yes', how }),
);

const target = { path: 'clusters/prod' };

function normalized(verb: string, subresource?: string) {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', resourceVersion: '7' },
    spec: { replicas: 2 },
  };
  return normalizeAuditEvents({
    target,
    body: {
      apiVersion: 'audit.k8s.io/v1',
      kind: 'EventList',
      items: [
        {
          auditID: 'a',
          stage: 'ResponseComplete',
          verb,
          requestURI: `/apis/apps/v1/namespaces/shop/deployments${verb === 'deletecollection' ? '' : '/web'}${subresource ? `/${subresource}` : ''}`,
          user: { username: 'alice@example.com' },
          objectRef: {
            resource: 'deployments',
            namespace: 'shop',
            ...(verb === 'deletecollection' ? {} : { name: 'web' }),
            apiGroup: 'apps',
            apiVersion: 'v1',
            ...(subresource ? { subresource } : {}),
          },
          responseStatus: { code: 200 },
          responseObject:
            subresource === 'scale'
              ? {
                  kind: 'Scale',
                  apiVersion: 'autoscaling/v1',
                  metadata: { name: 'web' },
                  spec: { replicas: 2 },
                }
              : deployment,
        },
      ],
    },
  });
}

describe('docs/payloads.md "Verbs and subresources"', () => {
  it('lists every verb and subresource rule, and only those, as recorded or not as the code says', () => {
    const documented = rows.map(({ what, name, recorded, how }) => [what, name, recorded, how]);
    const coded = [
      ...Object.entries(VERB_RULES).map(([name, rule]) => ['verb', name, rule.recorded, rule.how]),
      ...Object.entries(SUBRESOURCE_RULES).map(([name, rule]) => [
        'subresource',
        name,
        rule.recorded,
        rule.how,
      ]),
    ];
    expect(documented).toEqual(coded);
  });

  it.each(Object.entries(VERB_RULES))('verb %s is recorded exactly when the table says so', (verb, rule) => {
    const { changes, ignored } = normalized(verb);
    expect(changes.length > 0).toBe(rule.recorded);
    if (!rule.recorded) expect(ignored.map(({ reason }) => reason)).toEqual(['verb-not-recorded']);
  });

  it.each(Object.entries(SUBRESOURCE_RULES))(
    'subresource %s is recorded exactly when the table says so, and says why not',
    (subresource, rule) => {
      // an update is how each subresource that changes anything is written to
      const { changes, ignored } = normalized('update', subresource);
      if (rule.recorded) {
        expect(ignored.filter(({ reason }) => reason === 'subresource')).toEqual([]);
        expect(changes).toHaveLength(1);
      } else {
        expect(changes).toEqual([]);
        expect(ignored).toEqual([
          expect.objectContaining({
            reason: 'subresource',
            message: `subresource ${subresource} is not recorded: ${rule.how}`,
          }),
        ]);
      }
    },
  );
});

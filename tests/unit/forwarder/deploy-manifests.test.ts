import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseForwarderConfig } from '../../../shared/forwarder/config';

const DEPLOY = join(__dirname, '..', '..', '..', 'deploy', 'forwarder');
const read = <T>(file: string): T => parse(readFileSync(join(DEPLOY, file), 'utf8')) as T;

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };

describe('the forwarder deployment manifests', () => {
  const config = parseForwarderConfig(
    read<{ data: Record<string, string> }>('configmap.yaml').data['forwarder.yaml'] ?? '',
  );
  const rules = read<{ rules: Rule[] }>('clusterrole.yaml').rules;

  it('ship a configuration the forwarder accepts, in-cluster, with the token by variable', () => {
    expect(config.cluster.inCluster).toBe(true);
    const container = read<{
      spec: { template: { spec: { containers: { env: { name: string; valueFrom: unknown }[] }[] } } };
    }>('deployment.yaml').spec.template.spec.containers[0]!;
    expect(container.env).toEqual([
      {
        name: config.kubescribe.tokenEnv,
        valueFrom: { secretKeyRef: { name: 'kubescribe-forwarder', key: 'token' } },
      },
    ]);
  });

  it('grant exactly get, list and watch on every configured type and nothing more', () => {
    for (const rule of rules) expect(rule.verbs.sort()).toEqual(['get', 'list', 'watch']);
    const granted = rules.flatMap((rule) =>
      rule.apiGroups.flatMap((group) => rule.resources.map((r) => `${group}/${r}`)),
    );
    const configured = config.resources.map((r) => `${r.group}/${r.resource}`);
    expect(granted.sort()).toEqual(configured.sort());
  });
});

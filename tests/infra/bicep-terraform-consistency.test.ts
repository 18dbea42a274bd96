import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AZURE_APP_SETTINGS, FLEX_REFUSED_SETTINGS } from './app-settings-contract';
import {
  bicepAppSettings,
  eventHubProperties,
  resourceTypes,
  roleAssignments,
  securityProperties,
  settingNames,
} from './bicep-consistency';
import { type BicepFile, parseBicep } from './bicep-text';
import { loadTerraform, type TerraformModule } from './terraform-model';

const BICEP_DIR = join(__dirname, '..', '..', 'infra', 'bicep');
const bicepText = readFileSync(join(BICEP_DIR, 'main.bicep'), 'utf8');

/** The Bicep file with one edit; `find` must occur, so a stale edit fails loudly. */
function bicepWith(find: string, replace: string): BicepFile {
  if (!bicepText.includes(find)) throw new Error(`main.bicep does not contain ${JSON.stringify(find)}`);
  return parseBicep(bicepText.replace(find, replace));
}

describe('Bicep and Terraform deployments are kept in step (a consistency check of the Bicep text, not a compilation)', () => {
  let terraform: TerraformModule;
  let bicep: BicepFile;
  beforeAll(async () => {
    terraform = await loadTerraform();
    bicep = parseBicep(bicepText);
  });

  it('declare the same Azure resource types, one for one', () => {
    const { terraform: fromTerraform, bicep: fromBicep } = resourceTypes(terraform, bicep);
    expect(fromBicep).toEqual(fromTerraform);
    expect(fromTerraform).toContain('Microsoft.Web/sites');
  });

  it('set the same app setting names', () => {
    const { terraform: fromTerraform, bicep: fromBicep } = settingNames(terraform, bicep);
    expect(fromBicep).toEqual(fromTerraform);
  });

  it('set every app setting of the contract in the Bicep site, and none Flex Consumption refuses', () => {
    const names = bicepAppSettings(bicep).literal.map(([name]) => name);
    const expected = AZURE_APP_SETTINGS.filter(({ providedBy }) => providedBy !== 'runtime').map(
      ({ name }) => name,
    );
    expect(expected.filter((name) => !names.includes(name))).toEqual([]);
    expect(names.filter((name) => (FLEX_REFUSED_SETTINGS as readonly string[]).includes(name))).toEqual([]);
    const values = new Map(bicepAppSettings(bicep).literal);
    expect(values.get('AzureWebJobsStorage__credential')).toBe("'managedidentity'");
    expect(values.get('AzureWebJobsStorage__clientId')).toBe('identity.properties.clientId');
    expect(values.get('AZURE_CLIENT_ID')).toBe('identity.properties.clientId');
    expect(values.get('KUBESCRIBE_PAYLOADS')).toBe(
      `'blob:\${storage.properties.primaryEndpoints.blob}\${payloadContainerName}'`,
    );
  });

  it('turn every tokenEnv and keyEnv of the configuration into a Key Vault reference in Bicep too', () => {
    expect(bicepAppSettings(bicep).generated).toEqual(['tokenAppSettings']);
    expect(bicep.vars.get('tokenAppSettings')).toMatch(
      /^map\(tokenEnvs, env => \{\s*name: env\s*value: '@Microsoft\.KeyVault\(SecretUri=\$\{keyVaultUri\}secrets\/\$\{toLower\(replace\(env, '_', '-'\)\)\}\/\)'\s*\}\)$/,
    );
    expect(bicep.vars.get('tokenEnvs')).toBe(
      'union(repositoryTokenEnvs, repositoryKeyEnvs, signingKeyEnvs, sourceTokenEnvs, encryptionKeyEnvs)',
    );
    expect(bicep.vars.get('repositoryTokenEnvs')).toContain('repository => repository.auth.tokenEnv');
    expect(bicep.vars.get('repositoryKeyEnvs')).toContain('repository => repository.auth.privateKeyEnv');
    expect(bicep.vars.get('signingKeyEnvs')).toContain('repository => repository.signing.keyEnv');
    expect(bicep.vars.get('sourceTokenEnvs')).toContain('source => source.tokenEnv');
    expect(bicep.vars.get('encryptionKeyEnvs')).toContain('target => target.encryption.keyEnv');
  });

  it('assign the same roles on the same kinds of resource to the same principals', () => {
    const { terraform: fromTerraform, bicep: fromBicep } = roleAssignments(terraform, bicep);
    expect(fromBicep).toEqual(fromTerraform);
    expect(fromTerraform).toHaveLength(7);
  });

  it('agree on HTTPS, TLS, public access, shared keys, Key Vault mode, runtime and always-ready instances', () => {
    const { terraform: fromTerraform, bicep: fromBicep } = securityProperties(terraform, bicep);
    expect(fromBicep).toEqual(fromTerraform);
    expect(fromTerraform).toContain('https only = true');
    expect(fromTerraform).toContain('storage shared keys = false');
  });

  it('stream the same audit category to the same hub and consumer group, over the same TLS floor', () => {
    const { terraform: fromTerraform, bicep: fromBicep } = eventHubProperties(terraform, bicep);
    expect(fromBicep).toEqual(fromTerraform);
    expect(fromTerraform).toEqual([
      'namespace minimum TLS = 1.2',
      'namespace sku = Standard',
      'hub = aks-audit',
      'consumer group = kubescribe',
      'streamed categories = kube-audit-admin',
    ]);
  });

  it('take the same inputs with the same defaults, each described', () => {
    const pairs: [string, string][] = [
      ['name', 'name'],
      ['location', 'location'],
      ['kubescribe_config', 'kubescribeConfig'],
      ['task_hub_name', 'taskHubName'],
      ['maximum_instance_count', 'maximumInstanceCount'],
      ['instance_memory_mb', 'instanceMemoryMB'],
      ['always_ready_durable_instances', 'alwaysReadyDurableInstances'],
      ['storage_replication_type', 'storageSku'],
      ['log_retention_days', 'logRetentionDays'],
      ['grant_deployer_secrets_officer', 'secretsOfficerPrincipalId'],
      ['aks_cluster_id', 'aksClusterId'],
      ['event_hub_partition_count', 'eventHubPartitionCount'],
      ['tags', 'tags'],
    ];
    // The Bicep file deploys into a resource group that exists already.
    const terraformOnly = ['resource_group_name'];
    expect([...terraform.variables.keys()].sort()).toEqual(
      [...pairs.map(([name]) => name), ...terraformOnly].sort(),
    );
    expect([...bicep.params.keys()].sort()).toEqual(pairs.map(([, name]) => name).sort());
    for (const [variable, param] of pairs) {
      const bicepDefault = /^param \w+ \w+ = (.+)$/m.exec(
        bicepText.split('\n').find((line) => line.startsWith(`param ${param} `)) ?? '',
      )?.[1];
      const terraformDefault = terraform.variables.get(variable)?.default;
      if (typeof terraformDefault === 'number' || variable === 'task_hub_name') {
        expect([variable, String(bicepDefault).replace(/'/g, '')]).toEqual([
          variable,
          String(terraformDefault),
        ]);
      }
      expect([
        param,
        bicep.params.get(param)?.decorators.some((text) => text.startsWith('@description(')),
      ]).toEqual([param, true]);
    }
  });

  it('derive the same resource names and container names', () => {
    const terraformNames = [...terraform.locals]
      .filter(
        ([name]) =>
          name.endsWith('_name') && name !== 'package_container_name' && name !== 'payload_container_name',
      )
      .map(([, value]) =>
        String(value).replace(/\$\{(var\.name|local\.suffix)\}/g, (_, ref) =>
          ref === 'var.name' ? '<name>' : '<suffix>',
        ),
      )
      .sort();
    const bicepNames = [...bicep.vars]
      .filter(
        ([name]) =>
          name.endsWith('Name') && name !== 'packageContainerName' && name !== 'payloadContainerName',
      )
      .map(([, value]) => value.replace(/^'|'$/g, '').replace(/\$\{(name|suffix)\}/g, (_, ref) => `<${ref}>`))
      .sort();
    expect(bicepNames).toEqual(terraformNames);
    expect(bicep.vars.get('payloadContainerName')).toBe(
      `'${terraform.locals.get('payload_container_name')}'`,
    );
    expect(bicep.vars.get('packageContainerName')).toBe(
      `'${terraform.locals.get('package_container_name')}'`,
    );
  });

  it('give the same outputs', () => {
    const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const terraformOnly = ['resource_group_name'];
    const expected = [...terraform.outputs.keys()].filter((name) => !terraformOnly.includes(name)).map(camel);
    expect([...bicep.outputs.keys()].sort()).toEqual(expected.sort());
    for (const route of ['audit', 'events', 'snapshots']) {
      expect(bicep.outputs.get('webhookUrls')).toContain(
        `\${baseUrl}/v1/targets/\${uriComponent(target)}/${route}`,
      );
    }
    expect(bicep.vars.get('baseUrl')).toBe(`'https://\${functionApp.properties.defaultHostName}/api'`);
  });
});

describe('the consistency check, given a Bicep file that drifted', () => {
  let terraform: TerraformModule;
  beforeAll(async () => {
    terraform = await loadTerraform();
  });

  it('reports a role assignment that Bicep lost', () => {
    const drifted = bicepWith(
      "resource appStorageQueue 'Microsoft.Authorization/roleAssignments@2022-04-01' = {",
      "resource appStorageQueue 'Microsoft.Authorization/roleAssignments@2022-04-01' = {\n  scope: keyVault",
    );
    const { terraform: fromTerraform, bicep: fromBicep } = roleAssignments(terraform, drifted);
    expect(fromBicep).not.toEqual(fromTerraform);
  });

  it('reports an app setting that only Bicep sets', () => {
    const drifted = bicepWith("name: 'KUBESCRIBE_TASK_HUB'", "name: 'KUBESCRIBE_TASKHUB'");
    const { terraform: fromTerraform, bicep: fromBicep } = settingNames(terraform, drifted);
    expect(fromBicep).toContain('KUBESCRIBE_TASKHUB');
    expect(fromBicep).not.toEqual(fromTerraform);
  });

  it('reports a weaker TLS floor in Bicep', () => {
    const drifted = bicepWith("minTlsVersion: '1.2'", "minTlsVersion: '1.0'");
    const { bicep: fromBicep } = securityProperties(terraform, drifted);
    expect(fromBicep).toContain('minimum TLS = 1.0');
  });

  it('reports a diagnostic setting that streams another category in Bicep', () => {
    const drifted = bicepWith("category: 'kube-audit-admin'", "category: 'kube-audit'");
    const { terraform: fromTerraform, bicep: fromBicep } = eventHubProperties(terraform, drifted);
    expect(fromBicep).not.toEqual(fromTerraform);
    expect(fromBicep).toContain('streamed categories = kube-audit');
  });

  it('reports a resource only Bicep declares', () => {
    const drifted = parseBicep(
      `${bicepText}\nresource extra 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {\n  parent: storage\n  name: 'default'\n}\n`,
    );
    const { terraform: fromTerraform, bicep: fromBicep } = resourceTypes(terraform, drifted);
    expect(fromBicep.filter((type) => !fromTerraform.includes(type))).toEqual([
      'Microsoft.Storage/storageAccounts/queueServices',
    ]);
  });
});

describe('the Bicep parameters example', () => {
  it('is a deployment parameters file whose configuration names tokens by environment variable only', () => {
    const example = JSON.parse(readFileSync(join(BICEP_DIR, 'main.parameters.example.json'), 'utf8')) as {
      parameters: Record<string, { value: unknown }>;
    };
    const parsed = parseBicep(bicepText);
    const required = [...parsed.params].filter(
      ([name]) => !new RegExp(`^param ${name} \\w+ =`, 'm').test(bicepText),
    );
    for (const [name] of required) expect([name, name in example.parameters]).toEqual([name, true]);
    for (const name of Object.keys(example.parameters))
      expect([name, parsed.params.has(name)]).toEqual([name, true]);
    const config = JSON.stringify(example.parameters.kubescribeConfig?.value);
    expect(config).toContain('"tokenEnv":"GIT_TOKEN"');
    expect(config).toContain('"tokenEnv":"CLUSTER_A_TOKEN"');
    expect(config).not.toMatch(/"token"|password|ghp_/i);
  });
});

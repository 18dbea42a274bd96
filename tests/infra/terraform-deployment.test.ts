import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appSettings, functionApp } from './terraform-app-settings';
import { loadTerraform, readTerraformTexts, TERRAFORM_DIR, type TerraformModule } from './terraform-model';
import { undeclaredReferences } from './terraform-references';
import {
  contractViolations,
  eventHubViolations,
  identityStorageViolations,
  roleViolations,
  transportViolations,
} from './terraform-rules';
import { secretSettingViolations } from './terraform-secret-rules';

const REPO = join(__dirname, '..', '..');

describe('the Terraform deployment, parsed offline with @cdktf/hcl2json', () => {
  let module: TerraformModule;
  beforeAll(async () => {
    module = await loadTerraform();
  });

  it('parses every .tf file of infra/terraform', () => {
    expect(module.files).toEqual(
      expect.arrayContaining(['main.tf', 'variables.tf', 'outputs.tf', 'roles.tf']),
    );
    expect(module.files.length).toBe(Object.keys(readTerraformTexts(TERRAFORM_DIR)).length);
  });

  it('connects to storage with the managed identity only', () => {
    expect(identityStorageViolations(module)).toEqual([]);
  });

  it('serves HTTPS only with TLS 1.2 or newer and no public blob access', () => {
    expect(transportViolations(module)).toEqual([]);
  });

  it('keeps secrets out of plain app settings: tokens are Key Vault references', () => {
    expect(secretSettingViolations(module)).toEqual([]);
  });

  it('sets every app setting the app reads on Azure, and none that only the embedded host reads', () => {
    expect(contractViolations(module)).toEqual([]);
  });

  it('grants the app identity the storage, Key Vault and monitoring roles', () => {
    expect(roleViolations(module)).toEqual([]);
  });

  it('streams the AKS audit log to a hub the app reads with its identity, when a cluster is given', () => {
    expect(module.resources.has('azurerm_eventhub_namespace.audit')).toBe(true);
    expect(eventHubViolations(module)).toEqual([]);
  });

  it('refers only to declared resources, data sources, locals and variables', () => {
    expect(undeclaredReferences(module)).toEqual([]);
  });

  it('gives every variable a description, and a validation unless its type allows no bad value', () => {
    const unvalidated = [...module.variables]
      .filter(([, variable]) => !Array.isArray(variable.validation) || variable.validation.length === 0)
      .map(([name, variable]) => `${name}: ${String(variable.type)}`);
    expect(unvalidated).toEqual([`grant_deployer_secrets_officer: \${bool}`, `tags: \${map(string)}`]);
    for (const [name, variable] of module.variables) {
      expect([name, typeof variable.description === 'string' && variable.description.length > 20]).toEqual([
        name,
        true,
      ]);
    }
  });

  it('outputs the audit, events, snapshots and admission webhook URLs of the contract', () => {
    const urls = JSON.stringify(module.outputs.get('webhook_urls')?.value);
    for (const route of ['audit', 'events', 'snapshots']) {
      expect(urls).toContain(`\${local.base_url}/v1/targets/\${urlencode(target)}/${route}`);
    }
    expect(module.outputs.get('admission_webhook_url')?.value).toBe(`\${local.base_url}/v1/admission`);
    expect(module.locals.get('base_url')).toBe(`https://\${${functionApp(module)[0]}.default_hostname}/api`);
  });

  it('names the task hub with the same setting host.json reads', () => {
    const host = JSON.parse(readFileSync(join(REPO, 'host.json'), 'utf8')) as {
      extensions: { durableTask: { hubName: string } };
    };
    expect(host.extensions.durableTask.hubName).toBe('%KUBESCRIBE_TASK_HUB%');
    expect(appSettings(module).literal.get('KUBESCRIBE_TASK_HUB')).toBe(`\${var.task_hub_name}`);
  });

  it('keeps one warm instance for the durable group by default', () => {
    const [, app] = functionApp(module);
    expect(app.always_ready).toEqual([
      { name: 'durable', instance_count: `\${var.always_ready_durable_instances}` },
    ]);
    expect(module.variables.get('always_ready_durable_instances')?.default).toBe(1);
  });

  it('makes the app resolve Key Vault references with its user-assigned identity', () => {
    const update = module.resources.get('azapi_update_resource.key_vault_reference_identity');
    expect(update?.resource_id).toBe(`\${azurerm_function_app_flex_consumption.main.id}`);
    expect(update?.body).toEqual({
      properties: { keyVaultReferenceIdentity: `\${azurerm_user_assigned_identity.app.id}` },
    });
  });

  it('uses a Key Vault in RBAC mode', () => {
    expect(module.resources.get('azurerm_key_vault.main')?.rbac_authorization_enabled).toBe(true);
  });
});

describe('the example variables file', () => {
  it('parses, and names every token by environment variable without holding one', async () => {
    const text = readFileSync(join(TERRAFORM_DIR, 'kubescribe.tfvars.example'), 'utf8');
    const parsed = await loadTerraform({ 'example.tf': `locals {\n${text}\n}\n` });
    const config = String(parsed.locals.get('kubescribe_config'));
    expect(config).toContain('tokenEnv: GIT_TOKEN');
    expect(config).toContain('tokenEnv: CLUSTER_A_TOKEN');
    expect(config).not.toMatch(/\btoken:|password|ghp_/i);
  });
});

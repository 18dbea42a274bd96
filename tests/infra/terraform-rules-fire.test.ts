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

const texts = readTerraformTexts(TERRAFORM_DIR);

/** The deployment with one edit: `find` must occur in `file`, so a stale edit fails loudly. */
async function deploymentWith(file: string, find: string, replace: string): Promise<TerraformModule> {
  const text = texts[file];
  if (text === undefined || !text.includes(find))
    throw new Error(`${file} does not contain ${JSON.stringify(find)}`);
  return loadTerraform({ ...texts, [file]: text.replace(find, replace) });
}

describe('the Terraform rules, given a deployment that breaks them', () => {
  it('report a storage account key in an app setting', async () => {
    const broken = await deploymentWith(
      'locals.tf',
      'AzureWebJobsStorage                       = ""',
      `AzureWebJobsStorage = "DefaultEndpointsProtocol=https;AccountKey=\${azurerm_storage_account.main.primary_access_key}"`,
    );
    expect(identityStorageViolations(broken)).toEqual(
      expect.arrayContaining([
        'a value carries an AccountKey',
        'a storage account key is referenced',
        'azurerm_function_app_flex_consumption.main sets AzureWebJobsStorage to a connection string; use AzureWebJobsStorage__* settings',
      ]),
    );
  });

  it('report a storage access key on the app and a credential other than the managed identity', async () => {
    const keyed = await deploymentWith(
      'main.tf',
      '  https_only  ',
      '  storage_access_key = azurerm_storage_account.main.primary_access_key\n  https_only  ',
    );
    expect(identityStorageViolations(keyed)).toContain(
      'storage_access_key is set: storage must use the managed identity',
    );
    const noIdentity = await deploymentWith('locals.tf', '= "managedidentity"', '= "connectionstring"');
    expect(identityStorageViolations(noIdentity)).toContain(
      'azurerm_function_app_flex_consumption.main must set AzureWebJobsStorage__credential = "managedidentity"',
    );
  });

  it('report plain HTTP, TLS 1.0 and public blobs', async () => {
    const http = await deploymentWith(
      'main.tf',
      'https_only                                     = true',
      'https_only = false',
    );
    expect(transportViolations(http)).toContain(
      'azurerm_function_app_flex_consumption.main must set https_only = true',
    );
    const tls = await deploymentWith(
      'main.tf',
      'minimum_tls_version                    = "1.2"',
      'minimum_tls_version = "1.0"',
    );
    expect(transportViolations(tls)).toContain(
      'azurerm_function_app_flex_consumption.main site_config.minimum_tls_version must be "1.2" or newer',
    );
    const publicBlobs = await deploymentWith(
      'main.tf',
      'allow_nested_items_to_be_public = false',
      'allow_nested_items_to_be_public = true',
    );
    expect(transportViolations(publicBlobs)).toContain(
      'azurerm_storage_account.main must set allow_nested_items_to_be_public = false',
    );
  });

  it('report a token written into a plain app setting', async () => {
    const broken = await deploymentWith(
      'locals.tf',
      '    KUBESCRIBE_TASK_HUB ',
      '    GIT_TOKEN = "ghp_plaintext"\n    KUBESCRIBE_TASK_HUB ',
    );
    expect(secretSettingViolations(broken)).toContain(
      'azurerm_function_app_flex_consumption.main app setting GIT_TOKEN looks like a secret but is not a Key Vault reference',
    );
  });

  it('report token settings that are not Key Vault references, or not taken from the configuration', async () => {
    const notReferences = await deploymentWith(
      'locals.tf',
      '"@Microsoft.KeyVault(SecretUri=',
      '"plain(SecretUri=',
    );
    expect(secretSettingViolations(notReferences)).toContain(
      'local.token_settings values must be @Microsoft.KeyVault(SecretUri=...) references to versionless secrets',
    );
    const sourcesForgotten = await deploymentWith(
      'locals.tf',
      'concat(local.repository_token_envs, local.repository_key_envs, local.signing_key_envs, local.source_token_envs, local.encryption_key_envs)',
      'concat(local.repository_token_envs, local.repository_key_envs, local.signing_key_envs, local.encryption_key_envs)',
    );
    expect(secretSettingViolations(sourcesForgotten)).toContain(
      'local.token_settings is not keyed by every tokenEnv, privateKeyEnv and signing keyEnv of the configuration',
    );
    const appKeysForgotten = await deploymentWith(
      'locals.tf',
      'concat(local.repository_token_envs, local.repository_key_envs, local.signing_key_envs, local.source_token_envs, local.encryption_key_envs)',
      'concat(local.repository_token_envs, local.signing_key_envs, local.source_token_envs, local.encryption_key_envs)',
    );
    expect(secretSettingViolations(appKeysForgotten)).toContain(
      'local.token_settings is not keyed by every tokenEnv, privateKeyEnv and signing keyEnv of the configuration',
    );
    const signingKeysForgotten = await deploymentWith(
      'locals.tf',
      'concat(local.repository_token_envs, local.repository_key_envs, local.signing_key_envs, local.source_token_envs, local.encryption_key_envs)',
      'concat(local.repository_token_envs, local.repository_key_envs, local.source_token_envs, local.encryption_key_envs)',
    );
    expect(secretSettingViolations(signingKeysForgotten)).toContain(
      'local.token_settings is not keyed by every tokenEnv, privateKeyEnv and signing keyEnv of the configuration',
    );
  });

  it("report a target's encryption key left out of Key Vault, or put in a plain app setting", async () => {
    const keysForgotten = await deploymentWith(
      'locals.tf',
      'local.source_token_envs, local.encryption_key_envs)',
      'local.source_token_envs)',
    );
    expect(secretSettingViolations(keysForgotten)).toEqual([
      'local.token_settings is not keyed by every targets[].encryption.keyEnv of the configuration',
    ]);
    const plain = await deploymentWith(
      'locals.tf',
      '    KUBESCRIBE_TASK_HUB ',
      '    SOPS_DERIVATION_KEY = "c2VjcmV0LWRlcml2YXRpb24ta2V5LW9mLTMyLWNoYXJz"\n    KUBESCRIBE_TASK_HUB ',
    );
    expect(secretSettingViolations(plain)).toEqual([
      'azurerm_function_app_flex_consumption.main app setting SOPS_DERIVATION_KEY looks like a secret but is not a Key Vault reference',
    ]);
  });

  it('report an Application Insights resource that accepts its instrumentation key alone', async () => {
    const broken = await deploymentWith(
      'main.tf',
      'local_authentication_disabled = true',
      'local_authentication_disabled = false',
    );
    expect(secretSettingViolations(broken)).toContain(
      'azurerm_application_insights.main must set local_authentication_disabled = true',
    );
  });

  it('report a missing contract setting and an embedded-only one', async () => {
    const missing = await deploymentWith('locals.tf', '    KUBESCRIBE_PAYLOADS ', '    UNRELATED ');
    expect(contractViolations(missing)).toContain(
      'azurerm_function_app_flex_consumption.main does not provide KUBESCRIBE_PAYLOADS',
    );
    const both = await deploymentWith(
      'locals.tf',
      '    KUBESCRIBE_TASK_HUB ',
      '    KUBESCRIBE_CONFIG = "/home/site/kubescribe.yaml"\n    KUBESCRIBE_TASK_HUB ',
    );
    expect(contractViolations(both)).toContain(
      'azurerm_function_app_flex_consumption.main must not set KUBESCRIBE_CONFIG on Azure',
    );
  });

  it('report a missing always-ready durable group', async () => {
    const broken = await deploymentWith('main.tf', 'name           = "durable"', 'name           = "http"');
    expect(contractViolations(broken)).toContain(
      'azurerm_function_app_flex_consumption.main must keep instances always ready for the "durable" group',
    );
  });

  it('report a missing role and a role given to another principal', async () => {
    const missing = await deploymentWith('roles.tf', '"Storage Queue Data Contributor"', '"Reader"');
    expect(roleViolations(missing)).toEqual([
      "the app's identity lacks Storage Queue Data Contributor on the storage account",
    ]);
    const elsewhere = await deploymentWith(
      'roles.tf',
      'role_definition_name = "Key Vault Secrets User"\n  principal_id         = azurerm_user_assigned_identity.app.principal_id',
      'role_definition_name = "Key Vault Secrets User"\n  principal_id         = data.azurerm_client_config.current.object_id',
    );
    expect(roleViolations(elsewhere)).toEqual([
      "the app's identity lacks Key Vault Secrets User on the key vault",
    ]);
  });

  it('report an Event Hubs feed the app cannot read, or that carries the wrong log', async () => {
    const wrongCategory = await deploymentWith(
      'eventhub.tf',
      'category = "kube-audit-admin"',
      'category = "guard"',
    );
    expect(eventHubViolations(wrongCategory)).toEqual([
      'no diagnostic setting streams kube-audit-admin to azurerm_eventhub.audit',
    ]);
    const noReceiver = await deploymentWith(
      'eventhub.tf',
      '"Azure Event Hubs Data Receiver"',
      '"Azure Event Hubs Data Sender"',
    );
    expect(eventHubViolations(noReceiver)).toEqual([
      "the app's identity lacks Azure Event Hubs Data Receiver on azurerm_eventhub.audit",
    ]);
    const sharedGroup = await deploymentWith(
      'eventhub.tf',
      'name                = local.event_hub_consumer_group',
      'name                = "$Default"',
    );
    expect(eventHubViolations(sharedGroup)).toEqual([
      "azurerm_eventhub.audit needs a consumer group of kubescribe's own (not $Default)",
    ]);
    const keyedConnection = await deploymentWith(
      'locals.tf',
      'local.event_hub_enabled ? "managedidentity" : ""',
      'local.event_hub_enabled ? "connectionstring" : ""',
    );
    expect(eventHubViolations(keyedConnection)).toEqual([
      `azurerm_function_app_flex_consumption.main KUBESCRIBE_EVENTHUB__credential must be \${local.event_hub_enabled ? "managedidentity" : ""}`,
    ]);
    const otherHub = await deploymentWith(
      'locals.tf',
      'local.event_hub_enabled ? local.event_hub_name : ""',
      'local.event_hub_enabled ? "other-hub" : ""',
    );
    expect(eventHubViolations(otherHub)).toEqual([
      `azurerm_function_app_flex_consumption.main KUBESCRIBE_EVENTHUB_NAME must be \${local.event_hub_enabled ? local.event_hub_name : ""}`,
    ]);
    const weakTls = await deploymentWith(
      'eventhub.tf',
      'minimum_tls_version = "1.2"',
      'minimum_tls_version = "1.0"',
    );
    expect(eventHubViolations(weakTls)).toEqual([
      'azurerm_eventhub_namespace.audit must set minimum_tls_version = "1.2"',
    ]);
  });

  it('report storage roles broader than the app and its task hub use', async () => {
    const owner = await deploymentWith(
      'roles.tf',
      'role_definition_name = "Storage Blob Data Contributor"',
      'role_definition_name = "Storage Blob Data Owner"',
    );
    expect(roleViolations(owner)).toEqual([
      "the app's identity lacks Storage Blob Data Contributor on the storage account",
      "the app's identity holds Storage Blob Data Owner on azurerm_storage_account.main: broader than the app and its task hub use",
    ]);
    const accountKeys = await deploymentWith(
      'roles.tf',
      '# Reads the Git token',
      [
        'resource "azurerm_role_assignment" "app_storage_account" {',
        '  scope                = azurerm_storage_account.main.id',
        '  role_definition_name = "Storage Account Contributor"',
        '  principal_id         = azurerm_user_assigned_identity.app.principal_id',
        '}',
        '',
        '# Reads the Git token',
      ].join('\n'),
    );
    expect(roleViolations(accountKeys)).toEqual([
      "the app's identity holds Storage Account Contributor on azurerm_storage_account.main: broader than the app and its task hub use",
    ]);
  });

  it('report a reference to a resource or local that is not declared', async () => {
    const broken = await deploymentWith(
      'locals.tf',
      'azurerm_key_vault.main.vault_uri',
      'azurerm_key_vault.vault.vault_uri',
    );
    expect(undeclaredReferences(broken)).toEqual(['azurerm_key_vault.vault']);
    const typo = await deploymentWith('outputs.tf', 'local.token_secret_names', 'local.token_secret_name');
    expect(undeclaredReferences(typo)).toEqual(['local.token_secret_name']);
  });

  it('report a syntax error with its file and position', async () => {
    await expect(loadTerraform({ 'broken.tf': 'resource "x" "y" {\n  a =\n}\n' })).rejects.toThrow(
      /broken\.tf:2/,
    );
  });
});

import { BUILT_IN_ROLE_IDS } from './app-settings-contract';
import { type BicepFile, type BicepResource, propertyValues } from './bicep-text';
import { appSettings, functionApp } from './terraform-app-settings';
import { block, referencedResource, type TerraformModule } from './terraform-model';

// Compares what the two deployments declare, as sorted lists, so a test failure shows the difference.

/** The Azure resource type each Terraform resource type creates. */
const ARM_TYPE_OF: Record<string, string> = {
  azurerm_user_assigned_identity: 'Microsoft.ManagedIdentity/userAssignedIdentities',
  azurerm_storage_account: 'Microsoft.Storage/storageAccounts',
  azurerm_storage_container: 'Microsoft.Storage/storageAccounts/blobServices/containers',
  azurerm_log_analytics_workspace: 'Microsoft.OperationalInsights/workspaces',
  azurerm_application_insights: 'Microsoft.Insights/components',
  azurerm_key_vault: 'Microsoft.KeyVault/vaults',
  azurerm_service_plan: 'Microsoft.Web/serverfarms',
  azurerm_function_app_flex_consumption: 'Microsoft.Web/sites',
  azurerm_role_assignment: 'Microsoft.Authorization/roleAssignments',
  azurerm_eventhub_namespace: 'Microsoft.EventHub/namespaces',
  azurerm_eventhub: 'Microsoft.EventHub/namespaces/eventhubs',
  azurerm_eventhub_consumer_group: 'Microsoft.EventHub/namespaces/eventhubs/consumergroups',
  azurerm_monitor_diagnostic_setting: 'Microsoft.Insights/diagnosticSettings',
};

/** Terraform resources with no Bicep resource of their own, and why. */
export const TERRAFORM_ONLY = {
  azurerm_resource_group: 'the Bicep deployment goes into an existing resource group',
  azapi_update_resource: "sets the site's keyVaultReferenceIdentity, a property of the Bicep site",
  'data.azurerm_client_config': 'reads the tenant and the deployer; Bicep has subscription() and a parameter',
} as const;

/** Bicep resources that Terraform expresses as attributes, and why. */
export const BICEP_ONLY = {
  'Microsoft.Storage/storageAccounts/blobServices':
    "the containers' parent, implicit in azurerm_storage_container",
  'Microsoft.Web/sites/basicPublishingCredentialsPolicies':
    'the attribute webdeploy_publish_basic_authentication_enabled of the Terraform function app',
  'Microsoft.ContainerService/managedClusters':
    'the existing AKS cluster the diagnostic setting is scoped to; Terraform names it by id (target_resource_id)',
} as const;

/** Settings only one side sets, and why. */
export const SETTING_EXCEPTIONS = {
  // Terraform's provider injects a key-based value unless the setting is overridden with "".
  terraformOnly: ['AzureWebJobsStorage'],
  // Terraform sets it through site_config.application_insights_connection_string.
  bicepOnly: ['APPLICATIONINSIGHTS_CONNECTION_STRING'],
} as const;

/** Resource types of each deployment (one entry per resource), exceptions removed. */
export function resourceTypes(
  module: TerraformModule,
  bicep: BicepFile,
): { terraform: string[]; bicep: string[] } {
  const terraform: string[] = [];
  for (const address of module.resources.keys()) {
    const type = address.split('.').slice(0, -1).join('.');
    if (type in TERRAFORM_ONLY) continue;
    terraform.push(ARM_TYPE_OF[type] ?? `unmapped Terraform type ${type}`);
  }
  const types = bicep.resources.map((resource) => resource.type).filter((type) => !(type in BICEP_ONLY));
  return { terraform: terraform.sort(), bicep: types.sort() };
}

/** App setting names of each deployment: literal ones, exceptions removed. */
export function settingNames(
  module: TerraformModule,
  bicep: BicepFile,
): { terraform: string[]; bicep: string[] } {
  const terraform = [...appSettings(module).literal.keys()].filter(
    (name) => !(SETTING_EXCEPTIONS.terraformOnly as readonly string[]).includes(name),
  );
  const bicepNames = bicepAppSettings(bicep)
    .literal.map(([name]) => name)
    .filter((name) => !(SETTING_EXCEPTIONS.bicepOnly as readonly string[]).includes(name));
  return { terraform: terraform.sort(), bicep: bicepNames.sort() };
}

/** The Bicep site's app settings: `concat([ {name, value}... ], generatedVar)` or a plain array. */
export function bicepAppSettings(bicep: BicepFile): { literal: [string, string][]; generated: string[] } {
  const site = bicepSite(bicep);
  const [expression] = propertyValues(site.body, 'appSettings');
  if (expression === undefined) throw new Error('the Bicep site sets no appSettings');
  const literal = [...expression.matchAll(/\{\s*name:\s*'([^']+)'\s*value:\s*([^\n]+?)\s*\n\s*\}/g)].map(
    (match): [string, string] => [match[1]!, match[2]!],
  );
  const generated = /^concat\(\s*\[[\s\S]*\],\s*([\w\s,]+?)\s*\)$/
    .exec(expression)?.[1]
    ?.split(',')
    .map((name) => name.trim());
  return { literal, generated: generated ?? [] };
}

/** The role assignments of each deployment as `role on <ARM type> to <principal>`. */
export function roleAssignments(
  module: TerraformModule,
  bicep: BicepFile,
): { terraform: string[]; bicep: string[] } {
  const terraform: string[] = [];
  for (const [address, attributes] of module.resources) {
    if (!address.startsWith('azurerm_role_assignment.')) continue;
    const scope = referencedResource(attributes.scope)?.split('.')[0] ?? 'unknown';
    const principal = String(attributes.principal_id).includes('azurerm_user_assigned_identity.')
      ? 'app'
      : 'deployer';
    terraform.push(`${attributes.role_definition_name} on ${ARM_TYPE_OF[scope] ?? scope} to ${principal}`);
  }
  const bySymbol = new Map(bicep.resources.map((resource) => [resource.symbol, resource]));
  const bicepRoles: string[] = [];
  for (const resource of bicep.resources) {
    if (resource.type !== 'Microsoft.Authorization/roleAssignments') continue;
    const roleVar = /roleDefinitions',\s*(\w+)\)/.exec(resource.body)?.[1] ?? '';
    const roleId = (bicep.vars.get(roleVar) ?? '').replace(/'/g, '');
    const role = BUILT_IN_ROLE_IDS[roleId] ?? `unknown role ${roleVar}`;
    const scopeSymbol = propertyValues(resource.body, 'scope')[0] ?? '';
    const scope = bySymbol.get(scopeSymbol)?.type ?? `unknown scope ${scopeSymbol}`;
    const principal = (propertyValues(resource.body, 'principalId')[0] ?? '').startsWith('identity.')
      ? 'app'
      : 'deployer';
    bicepRoles.push(`${role} on ${scope} to ${principal}`);
  }
  return { terraform: terraform.sort(), bicep: bicepRoles.sort() };
}

/** The security and scale properties both deployments must agree on, as `name = value` lines. */
export function securityProperties(
  module: TerraformModule,
  bicep: BicepFile,
): { terraform: string[]; bicep: string[] } {
  const [, app] = functionApp(module);
  const site = block(app, 'site_config');
  const storage = module.resources.get('azurerm_storage_account.main') ?? {};
  const insights = module.resources.get('azurerm_application_insights.main') ?? {};
  const vault = module.resources.get('azurerm_key_vault.main') ?? {};
  const ready = (app.always_ready as { name?: string }[] | undefined)?.map((entry) => entry.name).join(',');
  const keyVaultIdentity = module.resources.get('azapi_update_resource.key_vault_reference_identity')?.body;
  const terraform = [
    `https only = ${app.https_only}`,
    `minimum TLS = ${site.minimum_tls_version}`,
    `SCM minimum TLS = ${site.scm_minimum_tls_version}`,
    `runtime = ${app.runtime_name} ${app.runtime_version}`,
    `always ready groups = ${ready}`,
    `package read with = ${app.storage_authentication_type}`,
    `Key Vault references resolved by the app identity = ${JSON.stringify(keyVaultIdentity).includes('user_assigned_identity')}`,
    `storage minimum TLS = ${storage.min_tls_version}`,
    `storage HTTPS only = ${storage.https_traffic_only_enabled}`,
    `storage public blobs = ${storage.allow_nested_items_to_be_public}`,
    `storage shared keys = ${storage.shared_access_key_enabled}`,
    `Application Insights local auth disabled = ${insights.local_authentication_disabled}`,
    `Key Vault RBAC = ${vault.rbac_authorization_enabled}`,
    `publishing basic auth = ${app.webdeploy_publish_basic_authentication_enabled}`,
  ];
  const siteBody = bicepSite(bicep).body;
  const body = (type: string) => bicep.resources.find((resource) => resource.type === type)?.body ?? '';
  const storageBody = body('Microsoft.Storage/storageAccounts');
  const alwaysReady = propertyValues(value(siteBody, 'alwaysReady'), 'name');
  const bicepLines = [
    `https only = ${value(siteBody, 'httpsOnly')}`,
    `minimum TLS = ${value(siteBody, 'minTlsVersion')}`,
    `SCM minimum TLS = ${value(siteBody, 'scmMinTlsVersion')}`,
    `runtime = ${value(siteBody, 'runtime', 'name')} ${value(siteBody, 'runtime', 'version')}`,
    `always ready groups = ${alwaysReady.map(unquote).join(',')}`,
    `package read with = ${value(siteBody, 'authentication', 'type')}`,
    `Key Vault references resolved by the app identity = ${value(siteBody, 'keyVaultReferenceIdentity') === 'identity.id'}`,
    `storage minimum TLS = ${value(storageBody, 'minimumTlsVersion')}`,
    `storage HTTPS only = ${value(storageBody, 'supportsHttpsTrafficOnly')}`,
    `storage public blobs = ${value(storageBody, 'allowBlobPublicAccess')}`,
    `storage shared keys = ${value(storageBody, 'allowSharedKeyAccess')}`,
    `Application Insights local auth disabled = ${value(body('Microsoft.Insights/components'), 'DisableLocalAuth')}`,
    `Key Vault RBAC = ${value(body('Microsoft.KeyVault/vaults'), 'enableRbacAuthorization')}`,
    `publishing basic auth = ${value(body('Microsoft.Web/sites/basicPublishingCredentialsPolicies'), 'allow')}`,
  ];
  return { terraform, bicep: bicepLines };
}

/** The value of a property path (`runtime`, `name`) in a Bicep body, unquoted; '' when absent. */
function value(body: string, ...path: string[]): string {
  return unquote(path.reduce((text, key) => propertyValues(text, key)[0] ?? '', body));
}

function unquote(text: string): string {
  return text.replace(/^'(.*)'$/, '$1');
}

function bicepSite(bicep: BicepFile): BicepResource {
  const sites = bicep.resources.filter((resource) => resource.type === 'Microsoft.Web/sites');
  if (sites.length !== 1)
    throw new Error(`expected one Microsoft.Web/sites in the Bicep file, found ${sites.length}`);
  return sites[0]!;
}

/** What the Event Hubs feed's resources must agree on, as `name = value` lines. */
export function eventHubProperties(
  module: TerraformModule,
  bicep: BicepFile,
): { terraform: string[]; bicep: string[] } {
  const resource = (address: string) => module.resources.get(address) ?? {};
  const namespace = resource('azurerm_eventhub_namespace.audit');
  const diagnostic = resource('azurerm_monitor_diagnostic_setting.aks_audit');
  const logs = (diagnostic.enabled_log as { category?: string }[] | undefined) ?? [];
  const local = (expression: unknown) =>
    String(module.locals.get(String(expression).replace(/^\$\{local\.(\w+)\}$/, '$1')) ?? expression);
  const terraform = [
    `namespace minimum TLS = ${namespace.minimum_tls_version}`,
    `namespace sku = ${namespace.sku}`,
    `hub = ${local(resource('azurerm_eventhub.audit').name)}`,
    `consumer group = ${local(resource('azurerm_eventhub_consumer_group.kubescribe').name)}`,
    `streamed categories = ${logs.map((log) => log.category).join(',')}`,
  ];
  const body = (type: string) => bicep.resources.find((entry) => entry.type === type)?.body ?? '';
  const variable = (expression: string) => unquote(bicep.vars.get(expression) ?? expression);
  const namespaceBody = body('Microsoft.EventHub/namespaces');
  const bicepLines = [
    `namespace minimum TLS = ${value(namespaceBody, 'minimumTlsVersion')}`,
    `namespace sku = ${value(namespaceBody, 'sku', 'name')}`,
    `hub = ${variable(value(body('Microsoft.EventHub/namespaces/eventhubs'), 'name'))}`,
    `consumer group = ${variable(value(body('Microsoft.EventHub/namespaces/eventhubs/consumergroups'), 'name'))}`,
    `streamed categories = ${propertyValues(body('Microsoft.Insights/diagnosticSettings'), 'category').map(unquote).join(',')}`,
  ];
  return { terraform, bicep: bicepLines };
}

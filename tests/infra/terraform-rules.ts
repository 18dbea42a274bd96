import {
  AZURE_APP_SETTINGS,
  EMBEDDED_ONLY_SETTINGS,
  FLEX_REFUSED_SETTINGS,
  REQUIRED_ROLES,
  TOO_BROAD_STORAGE_ROLES,
} from './app-settings-contract';
import { appSettings, functionApp } from './terraform-app-settings';
import {
  type Attributes,
  block,
  referencedResource,
  resourcesOfType,
  type TerraformModule,
} from './terraform-model';

// Each rule returns the violations it finds, as sentences naming the resource and the problem, so a
// failing test says what to fix and the rule tests can show that every rule does fire.

const IDENTITY = 'azurerm_user_assigned_identity';
const KEY_ATTRIBUTES = [
  'storage_account_access_key',
  'storage_access_key',
  'function_app_storage_account_access_key',
  'storage_key_vault_secret_id',
];

/** Storage is reached with the managed identity only: no keys, no key-based connection strings. */
export function identityStorageViolations(module: TerraformModule): string[] {
  const violations: string[] = [];
  const text = JSON.stringify([...module.resources, ...module.locals]);
  for (const attribute of KEY_ATTRIBUTES) {
    if (text.includes(`"${attribute}"`))
      violations.push(`${attribute} is set: storage must use the managed identity`);
  }
  if (text.includes('AccountKey')) violations.push('a value carries an AccountKey');
  if (/primary_(access_key|connection_string)/.test(text))
    violations.push('a storage account key is referenced');

  const [address, app] = functionApp(module);
  const settings = appSettings(module);
  violations.push(...settings.problems);
  const storage = settings.literal.get('AzureWebJobsStorage');
  if (storage !== undefined && storage !== '') {
    violations.push(
      `${address} sets AzureWebJobsStorage to a connection string; use AzureWebJobsStorage__* settings`,
    );
  }
  if (settings.literal.get('AzureWebJobsStorage__credential') !== 'managedidentity') {
    violations.push(`${address} must set AzureWebJobsStorage__credential = "managedidentity"`);
  }
  const identity = identityOf(module, address, app, violations);
  for (const name of ['AzureWebJobsStorage__clientId', 'AZURE_CLIENT_ID']) {
    const value = settings.literal.get(name);
    if (identity && value !== `\${${identity}.client_id}`) {
      violations.push(`${address} ${name} must be the client id of ${identity}, the identity it runs as`);
    }
  }
  if (
    !/^\$\{azurerm_storage_account\.[a-z0-9_]+\.name\}$/.test(
      String(settings.literal.get('AzureWebJobsStorage__accountName')),
    )
  ) {
    violations.push(`${address} AzureWebJobsStorage__accountName must name the deployment's storage account`);
  }
  if (app.storage_authentication_type !== 'UserAssignedIdentity') {
    violations.push(
      `${address} must read its package with storage_authentication_type = "UserAssignedIdentity"`,
    );
  }
  if (identity && app.storage_user_assigned_identity_id !== `\${${identity}.id}`) {
    violations.push(`${address} storage_user_assigned_identity_id must be ${identity}.id`);
  }
  for (const [account, attributes] of resourcesOfType(module, 'azurerm_storage_account')) {
    if (attributes.shared_access_key_enabled !== false)
      violations.push(`${account} must set shared_access_key_enabled = false`);
  }
  return violations;
}

/** HTTPS only, TLS 1.2 or newer everywhere, no anonymous blob access. */
export function transportViolations(module: TerraformModule): string[] {
  const violations: string[] = [];
  const [address, app] = functionApp(module);
  if (app.https_only !== true) violations.push(`${address} must set https_only = true`);
  const site = block(app, 'site_config');
  for (const attribute of ['minimum_tls_version', 'scm_minimum_tls_version']) {
    if (!['1.2', '1.3'].includes(String(site[attribute]))) {
      violations.push(`${address} site_config.${attribute} must be "1.2" or newer`);
    }
  }
  const accounts = resourcesOfType(module, 'azurerm_storage_account');
  if (accounts.length === 0) violations.push('no azurerm_storage_account is declared');
  for (const [account, attributes] of accounts) {
    if (!['TLS1_2', 'TLS1_3'].includes(String(attributes.min_tls_version))) {
      violations.push(`${account} must set min_tls_version = "TLS1_2"`);
    }
    if (attributes.https_traffic_only_enabled !== true)
      violations.push(`${account} must set https_traffic_only_enabled = true`);
    if (attributes.allow_nested_items_to_be_public !== false) {
      violations.push(`${account} must set allow_nested_items_to_be_public = false`);
    }
  }
  for (const [container, attributes] of resourcesOfType(module, 'azurerm_storage_container')) {
    if (attributes.container_access_type !== 'private') violations.push(`${container} must be private`);
  }
  return violations;
}

/** Every setting of the app settings contract is provided; embedded-only and refused ones are not. */
export function contractViolations(module: TerraformModule): string[] {
  const violations: string[] = [];
  const [address, app] = functionApp(module);
  const settings = appSettings(module);
  violations.push(...settings.problems);
  const site = block(app, 'site_config');
  for (const { name, providedBy } of AZURE_APP_SETTINGS) {
    if (settings.literal.has(name)) continue;
    if (providedBy === 'runtime' && name === 'FUNCTIONS_WORKER_RUNTIME' && app.runtime_name === 'node')
      continue;
    if (
      providedBy === 'app setting or site_config' &&
      typeof site.application_insights_connection_string === 'string'
    ) {
      continue;
    }
    violations.push(`${address} does not provide ${name}`);
  }
  for (const name of [...EMBEDDED_ONLY_SETTINGS, ...FLEX_REFUSED_SETTINGS]) {
    if (settings.literal.has(name)) violations.push(`${address} must not set ${name} on Azure`);
  }
  if (app.runtime_name !== 'node' || app.runtime_version !== '22') {
    violations.push(`${address} must run runtime_name = "node", runtime_version = "22"`);
  }
  const payloads = String(settings.literal.get('KUBESCRIBE_PAYLOADS'));
  if (
    !/^blob:\$\{azurerm_storage_account\.\w+\.primary_blob_endpoint\}\$\{azurerm_storage_container\.\w+\.name\}$/.test(
      payloads,
    )
  ) {
    violations.push(`${address} KUBESCRIBE_PAYLOADS must be blob:<the payload container's URL>`);
  }
  if (settings.literal.get('KUBESCRIBE_CONFIG_CONTENT') !== `\${var.kubescribe_config}`) {
    violations.push(`${address} KUBESCRIBE_CONFIG_CONTENT must be var.kubescribe_config`);
  }
  if (settings.literal.get('KUBESCRIBE_TASK_HUB') !== `\${var.task_hub_name}`) {
    violations.push(`${address} KUBESCRIBE_TASK_HUB must be var.task_hub_name`);
  }
  const ready = app.always_ready;
  const durable = Array.isArray(ready)
    ? (ready as Attributes[]).find((entry) => entry.name === 'durable')
    : undefined;
  if (!durable) violations.push(`${address} must keep instances always ready for the "durable" group`);
  return violations;
}

/** The app's identity holds every role Durable Functions, the payload store and the vault need. */
export function roleViolations(module: TerraformModule): string[] {
  const violations: string[] = [];
  const [address, app] = functionApp(module);
  const identity = identityOf(module, address, app, violations);
  const assignments = resourcesOfType(module, 'azurerm_role_assignment').map(([, attributes]) => attributes);
  const scopeTypes: Record<string, string> = {
    'storage account': 'azurerm_storage_account',
    'key vault': 'azurerm_key_vault',
    'application insights': 'azurerm_application_insights',
  };
  for (const { role, scope } of REQUIRED_ROLES) {
    const granted = assignments.some(
      (attributes) =>
        attributes.role_definition_name === role &&
        referencedResource(attributes.scope)?.startsWith(`${scopeTypes[scope]}.`) &&
        identity !== undefined &&
        attributes.principal_id === `\${${identity}.principal_id}`,
    );
    if (!granted) violations.push(`the app's identity lacks ${role} on the ${scope}`);
  }
  for (const attributes of assignments) {
    const role = String(attributes.role_definition_name);
    const scope = referencedResource(attributes.scope) ?? String(attributes.scope);
    const onStorage = scope.startsWith('azurerm_storage_') || scope.startsWith('azurerm_resource_group.');
    if (
      identity !== undefined &&
      attributes.principal_id === `\${${identity}.principal_id}` &&
      onStorage &&
      (TOO_BROAD_STORAGE_ROLES as readonly string[]).includes(role)
    ) {
      violations.push(
        `the app's identity holds ${role} on ${scope}: broader than the app and its task hub use`,
      );
    }
  }
  return violations;
}

function identityOf(
  module: TerraformModule,
  address: string,
  app: Attributes,
  violations: string[],
): string | undefined {
  const identity = block(app, 'identity');
  const ids = identity.identity_ids;
  const first = Array.isArray(ids) && ids.length === 1 ? referencedResource(ids[0]) : undefined;
  if (
    identity.type !== 'UserAssigned' ||
    !first?.startsWith(`${IDENTITY}.`) ||
    !module.resources.has(first)
  ) {
    violations.push(`${address} must run as exactly one ${IDENTITY} of the module`);
    return undefined;
  }
  return first;
}

/**
 * With an AKS cluster to read (`azurerm_eventhub_namespace` declared): its diagnostic setting streams
 * kube-audit-admin to the hub the app's binding reads, through a consumer group of its own, with the
 * app's identity (Azure Event Hubs Data Receiver on the hub) over TLS 1.2; the binding's settings name
 * that namespace, hub and group, and the identity-based connection.
 */
export function eventHubViolations(module: TerraformModule): string[] {
  const violations: string[] = [];
  const namespaces = resourcesOfType(module, 'azurerm_eventhub_namespace');
  if (namespaces.length === 0) return violations;
  const [address, app] = functionApp(module);
  const identity = identityOf(module, address, app, violations);
  const [namespace, namespaceAttributes] = namespaces[0]!;
  if (!['1.2', '1.3'].includes(String(namespaceAttributes.minimum_tls_version)))
    violations.push(`${namespace} must set minimum_tls_version = "1.2"`);
  const hubs = resourcesOfType(module, 'azurerm_eventhub');
  const hub = hubs.find(([, attributes]) => referencedResource(attributes.namespace_id) === namespace);
  if (!hub) {
    violations.push(`no azurerm_eventhub in ${namespace}`);
    return violations;
  }
  const [hubAddress, hubAttributes] = hub;
  const settings = appSettings(module).literal;
  const enabled = (value: string) => `\${local.event_hub_enabled ? ${value} : ""}`;
  const hubName = String(hubAttributes.name).replace(/^\$\{(.*)\}$/, '$1');
  const expected: [string, string][] = [
    [
      'KUBESCRIBE_EVENTHUB__fullyQualifiedNamespace',
      enabled(`"${String(namespaceAttributes.name)}.servicebus.windows.net"`),
    ],
    ['KUBESCRIBE_EVENTHUB__credential', enabled('"managedidentity"')],
    ['KUBESCRIBE_EVENTHUB__clientId', enabled(`${identity}.client_id`)],
    ['KUBESCRIBE_EVENTHUB_NAME', enabled(hubName)],
  ];
  for (const [name, value] of expected) {
    if (settings.get(name) !== value) violations.push(`${address} ${name} must be ${value}`);
  }
  const groups = resourcesOfType(module, 'azurerm_eventhub_consumer_group').filter(
    ([, attributes]) => attributes.eventhub_name === `\${${hubAddress}[0].name}`,
  );
  const group = groups[0]?.[1];
  if (!group || group.name === '$Default') {
    violations.push(`${hubAddress} needs a consumer group of kubescribe's own (not $Default)`);
  } else if (
    settings.get('KUBESCRIBE_EVENTHUB_CONSUMER_GROUP') !==
    enabled(String(group.name).replace(/^\$\{(.*)\}$/, '$1'))
  ) {
    violations.push(
      `${address} KUBESCRIBE_EVENTHUB_CONSUMER_GROUP must name the consumer group ${groups[0]![0]}`,
    );
  }
  const streams = resourcesOfType(module, 'azurerm_monitor_diagnostic_setting').filter(
    ([, attributes]) => attributes.eventhub_name === `\${${hubAddress}[0].name}`,
  );
  const categories = streams.flatMap(([, attributes]) =>
    Array.isArray(attributes.enabled_log)
      ? (attributes.enabled_log as Attributes[]).map((log) => log.category)
      : [],
  );
  if (!categories.includes('kube-audit-admin'))
    violations.push(`no diagnostic setting streams kube-audit-admin to ${hubAddress}`);
  const receiver = resourcesOfType(module, 'azurerm_role_assignment').some(
    ([, attributes]) =>
      attributes.role_definition_name === 'Azure Event Hubs Data Receiver' &&
      [hubAddress, namespace].includes(referencedResource(attributes.scope) ?? '') &&
      identity !== undefined &&
      attributes.principal_id === `\${${identity}.principal_id}`,
  );
  if (!receiver) violations.push(`the app's identity lacks Azure Event Hubs Data Receiver on ${hubAddress}`);
  return violations;
}

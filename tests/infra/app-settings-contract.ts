/**
 * The app settings kubescribe and the Functions runtime read on Azure (the team's app settings
 * contract). Each entry says how a deployment provides it: as an app setting, or through a provider
 * property that the platform turns into that setting.
 */
export const AZURE_APP_SETTINGS = [
  { name: 'KUBESCRIBE_CONFIG_CONTENT', providedBy: 'app setting' },
  { name: 'KUBESCRIBE_PAYLOADS', providedBy: 'app setting' },
  { name: 'KUBESCRIBE_TASK_HUB', providedBy: 'app setting' },
  { name: 'AZURE_CLIENT_ID', providedBy: 'app setting' },
  { name: 'AzureWebJobsStorage__accountName', providedBy: 'app setting' },
  { name: 'AzureWebJobsStorage__credential', providedBy: 'app setting' },
  { name: 'AzureWebJobsStorage__clientId', providedBy: 'app setting' },
  // Flex Consumption sets the worker runtime from functionAppConfig.runtime and refuses the setting.
  { name: 'FUNCTIONS_WORKER_RUNTIME', providedBy: 'runtime' },
  { name: 'APPLICATIONINSIGHTS_CONNECTION_STRING', providedBy: 'app setting or site_config' },
] as const;

/**
 * Settings that only make sense for the embedded host; on Azure they must stay unset
 * (`KUBESCRIBE_CONFIG` together with `KUBESCRIBE_CONFIG_CONTENT` is a start-up error).
 */
export const EMBEDDED_ONLY_SETTINGS = ['KUBESCRIBE_CONFIG', 'KUBESCRIBE_DATA', 'PORT'] as const;

/** Settings Flex Consumption refuses because functionAppConfig replaces them. */
export const FLEX_REFUSED_SETTINGS = [
  'FUNCTIONS_WORKER_RUNTIME',
  'FUNCTIONS_EXTENSION_VERSION',
  'WEBSITE_NODE_DEFAULT_VERSION',
  'WEBSITE_RUN_FROM_PACKAGE',
  'WEBSITE_CONTENTAZUREFILECONNECTIONSTRING',
  'WEBSITE_CONTENTSHARE',
] as const;

/**
 * The role assignments the app's identity needs, by the kind of resource they are scoped to: the
 * Durable Functions Azure Storage backend needs blob, queue and table data access (Contributor, not
 * Owner: "Storage Queue Data Contributor, Storage Blob Data Contributor and Storage Table Data
 * Contributor", learn.microsoft.com/azure/azure-functions/durable/durable-functions-configure-managed-identity),
 * and the payload store reads, writes and deletes blobs in its container.
 */
export const REQUIRED_ROLES = [
  { role: 'Storage Blob Data Contributor', scope: 'storage account' },
  { role: 'Storage Queue Data Contributor', scope: 'storage account' },
  { role: 'Storage Table Data Contributor', scope: 'storage account' },
  { role: 'Key Vault Secrets User', scope: 'key vault' },
  { role: 'Monitoring Metrics Publisher', scope: 'application insights' },
] as const;

/**
 * Storage roles broader than the app uses, that its identity must not hold: Owner-level blob access
 * (ACLs, ownership), account management (keys: `listKeys` turns the identity into every key's holder).
 */
export const TOO_BROAD_STORAGE_ROLES = [
  'Storage Blob Data Owner',
  'Storage Account Contributor',
  'Contributor',
  'Owner',
] as const;

/** Built-in role definition ids (the same in every tenant), for deployments that name roles by id. */
export const BUILT_IN_ROLE_IDS: Record<string, string> = {
  'b7e6dc6d-f1e8-4753-8033-0f276bb0955b': 'Storage Blob Data Owner',
  'ba92f5b4-2d11-453d-a403-e96b0029c9fe': 'Storage Blob Data Contributor',
  '974c5e8b-45b9-4653-ba55-5f855dd0fb88': 'Storage Queue Data Contributor',
  '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3': 'Storage Table Data Contributor',
  '4633458b-17de-408a-b874-0445c86b69e6': 'Key Vault Secrets User',
  'b86a8fe4-44ce-4948-aee5-eccb2c155cd7': 'Key Vault Secrets Officer',
  '3913510d-42f4-4e42-8a64-420c390055eb': 'Monitoring Metrics Publisher',
  'a638d3c7-ab3a-418d-83e6-5f17a39d4fde': 'Azure Event Hubs Data Receiver',
};

data "azurerm_client_config" "current" {}

locals {
  config = yamldecode(var.kubescribe_config)

  # Deterministic, like Bicep's uniqueString(resourceGroup().id): the same inputs give the same names.
  suffix = substr(sha1("${data.azurerm_client_config.current.subscription_id}/${var.resource_group_name}/${var.name}"), 0, 6)

  identity_name          = "id-${var.name}-${local.suffix}"
  storage_account_name   = "st${var.name}${local.suffix}"
  workspace_name         = "log-${var.name}-${local.suffix}"
  app_insights_name      = "appi-${var.name}-${local.suffix}"
  key_vault_name         = "kv-${var.name}-${local.suffix}"
  plan_name              = "plan-${var.name}-${local.suffix}"
  function_app_name      = "func-${var.name}-${local.suffix}"
  payload_container_name = "kubescribe-payloads"
  package_container_name = "app-package"

  event_hub_enabled        = var.aks_cluster_id != ""
  event_hub_namespace_name = "evhns-${var.name}-${local.suffix}"
  event_hub_name           = "aks-audit"
  event_hub_consumer_group = "kubescribe"

  target_names = [for t in local.config.targets : t.name]

  # Secrets are named in the config, never held by it: every tokenEnv becomes an app setting that
  # references a Key Vault secret of the same name (Key Vault allows only letters, digits and '-').
  # A GitHub App's private key (auth.privateKeyEnv) and a commit signing key (signing.keyEnv,
  # docs/signing.md) are such secrets too; an azure-identity repository
  # needs none: the app's identity (AZURE_CLIENT_ID) gets its Entra ID token for Azure DevOps.
  repository_token_envs = [for r in try(local.config.repositories, []) : r.auth.tokenEnv if can(r.auth.tokenEnv)]
  repository_key_envs   = [for r in try(local.config.repositories, []) : r.auth.privateKeyEnv if can(r.auth.privateKeyEnv)]
  signing_key_envs      = [for r in try(local.config.repositories, []) : r.signing.keyEnv if can(r.signing.keyEnv)]
  source_token_envs     = [for s in try(local.config.sources, []) : s.tokenEnv if can(s.tokenEnv)]
  # A target's encryption key (targets[].encryption.keyEnv) unwraps every data key the payload store
  # keeps for its Secrets: a Key Vault secret like the tokens, never a plain setting beside that store.
  encryption_key_envs   = [for t in try(local.config.targets, []) : t.encryption.keyEnv if can(t.encryption.keyEnv)]
  token_envs            = distinct(concat(local.repository_token_envs, local.repository_key_envs, local.signing_key_envs, local.source_token_envs, local.encryption_key_envs))
  token_secret_names    = { for env in local.token_envs : env => lower(replace(env, "_", "-")) }

  # Versionless secret URIs: a rotated secret is picked up without redeploying (see docs/deploy-azure.md).
  token_settings = { for env, secret in local.token_secret_names : env => "@Microsoft.KeyVault(SecretUri=${azurerm_key_vault.main.vault_uri}secrets/${secret}/)" }

  app_settings = {
    # Empty on purpose: the provider otherwise injects a key-based AzureWebJobsStorage with an empty
    # AccountKey that shadows the identity settings (hashicorp/terraform-provider-azurerm#29149, #29693).
    AzureWebJobsStorage                       = ""
    AzureWebJobsStorage__accountName          = azurerm_storage_account.main.name
    AzureWebJobsStorage__credential           = "managedidentity"
    AzureWebJobsStorage__clientId             = azurerm_user_assigned_identity.app.client_id
    APPLICATIONINSIGHTS_AUTHENTICATION_STRING = "Authorization=AAD;ClientId=${azurerm_user_assigned_identity.app.client_id}"
    AZURE_CLIENT_ID                           = azurerm_user_assigned_identity.app.client_id
    KUBESCRIBE_CONFIG_CONTENT                 = var.kubescribe_config
    KUBESCRIBE_PAYLOADS                       = "blob:${azurerm_storage_account.main.primary_blob_endpoint}${azurerm_storage_container.payloads.name}"
    KUBESCRIBE_TASK_HUB                       = var.task_hub_name
    # The eventhub-feed function's binding: an identity-based connection (the Functions host's
    # <connection>__fullyQualifiedNamespace convention) and the hub it reads. Empty without a
    # cluster: the function registers only when KUBESCRIBE_EVENTHUB_NAME is set.
    KUBESCRIBE_EVENTHUB__fullyQualifiedNamespace = local.event_hub_enabled ? "${local.event_hub_namespace_name}.servicebus.windows.net" : ""
    KUBESCRIBE_EVENTHUB__credential              = local.event_hub_enabled ? "managedidentity" : ""
    KUBESCRIBE_EVENTHUB__clientId                = local.event_hub_enabled ? azurerm_user_assigned_identity.app.client_id : ""
    KUBESCRIBE_EVENTHUB_NAME                     = local.event_hub_enabled ? local.event_hub_name : ""
    KUBESCRIBE_EVENTHUB_CONSUMER_GROUP           = local.event_hub_enabled ? local.event_hub_consumer_group : ""
  }

  base_url = "https://${azurerm_function_app_flex_consumption.main.default_hostname}/api"
}

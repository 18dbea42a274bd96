output "function_app_name" {
  description = "Name of the function app: deploy the package to it."
  value       = azurerm_function_app_flex_consumption.main.name
}

output "resource_group_name" {
  description = "Resource group holding every kubescribe resource."
  value       = azurerm_resource_group.main.name
}

output "key_vault_name" {
  description = "Key Vault that holds the Git token and the source tokens."
  value       = azurerm_key_vault.main.name
}

output "key_vault_secret_names" {
  description = "Secret to create in the Key Vault for each tokenEnv, privateKeyEnv and keyEnv of the configuration (environment variable name => secret name)."
  value       = local.token_secret_names
}

output "identity_client_id" {
  description = "Client id of the app's managed identity: for a repository with auth.kind azure-identity, add this identity to the Azure DevOps organization and give it access to the repository (docs/deploy-azure.md)."
  value       = azurerm_user_assigned_identity.app.client_id
}

output "identity_principal_id" {
  description = "Object (principal) id of the app's managed identity, as Azure DevOps and Entra ID list it."
  value       = azurerm_user_assigned_identity.app.principal_id
}

output "storage_account_name" {
  description = "Storage account of the task hub, the payloads and the deployment package."
  value       = azurerm_storage_account.main.name
}

output "webhook_urls" {
  description = "Per target: the URLs to give a cluster (audit webhook backend, event forwarder, snapshots)."
  value = {
    for target in local.target_names : target => {
      audit     = "${local.base_url}/v1/targets/${urlencode(target)}/audit"
      events    = "${local.base_url}/v1/targets/${urlencode(target)}/events"
      snapshots = "${local.base_url}/v1/targets/${urlencode(target)}/snapshots"
    }
  }
}

output "admission_webhook_url" {
  description = "URL for the validating admission webhook that registers CommitRequest saves."
  value       = "${local.base_url}/v1/admission"
}

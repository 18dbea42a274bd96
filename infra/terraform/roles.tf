# Durable Functions (Azure Storage provider) needs blobs (leases, large messages), queues (control
# and work-item queues) and tables (history, instances); the Functions host needs blobs (host locks).
# The payload store and the deployment package are blobs in the same account. Read, write, delete
# and create containers is all of it: Storage Blob Data Contributor, not Owner (which also manages
# ACLs). On the account, not on containers: the host and the task hub create their containers,
# queues and tables when they first run, under names they derive (docs/deploy-azure.md).
resource "azurerm_role_assignment" "app_storage_blob" {
  scope                = azurerm_storage_account.main.id
  role_definition_name = "Storage Blob Data Contributor"
  principal_id         = azurerm_user_assigned_identity.app.principal_id
  principal_type       = "ServicePrincipal"
}

resource "azurerm_role_assignment" "app_storage_queue" {
  scope                = azurerm_storage_account.main.id
  role_definition_name = "Storage Queue Data Contributor"
  principal_id         = azurerm_user_assigned_identity.app.principal_id
  principal_type       = "ServicePrincipal"
}

resource "azurerm_role_assignment" "app_storage_table" {
  scope                = azurerm_storage_account.main.id
  role_definition_name = "Storage Table Data Contributor"
  principal_id         = azurerm_user_assigned_identity.app.principal_id
  principal_type       = "ServicePrincipal"
}

# Reads the Git token, the source tokens and the targets' encryption keys behind the Key Vault references.
resource "azurerm_role_assignment" "app_key_vault_secrets" {
  scope                = azurerm_key_vault.main.id
  role_definition_name = "Key Vault Secrets User"
  principal_id         = azurerm_user_assigned_identity.app.principal_id
  principal_type       = "ServicePrincipal"
}

# Application Insights with local authentication off accepts telemetry only from this role.
resource "azurerm_role_assignment" "app_monitoring_metrics" {
  scope                = azurerm_application_insights.main.id
  role_definition_name = "Monitoring Metrics Publisher"
  principal_id         = azurerm_user_assigned_identity.app.principal_id
  principal_type       = "ServicePrincipal"
}

# Lets whoever ran Terraform store the token values (they never pass through Terraform state).
resource "azurerm_role_assignment" "deployer_key_vault_secrets" {
  count                = var.grant_deployer_secrets_officer ? 1 : 0
  scope                = azurerm_key_vault.main.id
  role_definition_name = "Key Vault Secrets Officer"
  principal_id         = data.azurerm_client_config.current.object_id
}

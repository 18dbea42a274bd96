resource "azurerm_resource_group" "main" {
  name     = var.resource_group_name
  location = var.location
  tags     = var.tags
}

# One identity for everything the app touches: the task hub, the payload store, the deployment
# package, Key Vault references and Application Insights ingestion.
resource "azurerm_user_assigned_identity" "app" {
  name                = local.identity_name
  resource_group_name = azurerm_resource_group.main.name
  location            = azurerm_resource_group.main.location
  tags                = var.tags
}

resource "azurerm_storage_account" "main" {
  name                            = local.storage_account_name
  resource_group_name             = azurerm_resource_group.main.name
  location                        = azurerm_resource_group.main.location
  account_kind                    = "StorageV2"
  account_tier                    = "Standard"
  account_replication_type        = var.storage_replication_type
  https_traffic_only_enabled      = true
  min_tls_version                 = "TLS1_2"
  allow_nested_items_to_be_public = false
  shared_access_key_enabled       = false
  default_to_oauth_authentication = true
  tags                            = var.tags
}

# Resource bodies (content-addressed); the branch entities keep only references to them.
resource "azurerm_storage_container" "payloads" {
  name                  = local.payload_container_name
  storage_account_id    = azurerm_storage_account.main.id
  container_access_type = "private"
}

# Flex Consumption runs the zip uploaded here.
resource "azurerm_storage_container" "package" {
  name                  = local.package_container_name
  storage_account_id    = azurerm_storage_account.main.id
  container_access_type = "private"
}

resource "azurerm_log_analytics_workspace" "main" {
  name                = local.workspace_name
  resource_group_name = azurerm_resource_group.main.name
  location            = azurerm_resource_group.main.location
  sku                 = "PerGB2018"
  retention_in_days   = var.log_retention_days
  tags                = var.tags
}

# Local authentication is off, so the connection string in the app settings is not a credential:
# ingestion needs the identity (APPLICATIONINSIGHTS_AUTHENTICATION_STRING).
resource "azurerm_application_insights" "main" {
  name                          = local.app_insights_name
  resource_group_name           = azurerm_resource_group.main.name
  location                      = azurerm_resource_group.main.location
  workspace_id                  = azurerm_log_analytics_workspace.main.id
  application_type              = "Node.JS"
  local_authentication_disabled = true
  tags                          = var.tags
}

resource "azurerm_key_vault" "main" {
  name                       = local.key_vault_name
  resource_group_name        = azurerm_resource_group.main.name
  location                   = azurerm_resource_group.main.location
  tenant_id                  = data.azurerm_client_config.current.tenant_id
  sku_name                   = "standard"
  rbac_authorization_enabled = true
  purge_protection_enabled   = true
  soft_delete_retention_days = 7
  tags                       = var.tags
}

resource "azurerm_service_plan" "main" {
  name                = local.plan_name
  resource_group_name = azurerm_resource_group.main.name
  location            = azurerm_resource_group.main.location
  os_type             = "Linux"
  sku_name            = "FC1"
  tags                = var.tags
}

resource "azurerm_function_app_flex_consumption" "main" {
  name                = local.function_app_name
  resource_group_name = azurerm_resource_group.main.name
  location            = azurerm_resource_group.main.location
  service_plan_id     = azurerm_service_plan.main.id

  runtime_name           = "node"
  runtime_version        = "22"
  maximum_instance_count = var.maximum_instance_count
  instance_memory_in_mb  = var.instance_memory_mb

  storage_container_type            = "blobContainer"
  storage_container_endpoint        = "${azurerm_storage_account.main.primary_blob_endpoint}${azurerm_storage_container.package.name}"
  storage_authentication_type       = "UserAssignedIdentity"
  storage_user_assigned_identity_id = azurerm_user_assigned_identity.app.id

  https_only                                     = true
  webdeploy_publish_basic_authentication_enabled = false

  identity {
    type         = "UserAssigned"
    identity_ids = [azurerm_user_assigned_identity.app.id]
  }

  # The durable group runs the branch entities, the branch drivers and their activities: one warm
  # instance keeps timers and queue polling going while no webhook arrives.
  always_ready {
    name           = "durable"
    instance_count = var.always_ready_durable_instances
  }

  site_config {
    minimum_tls_version                    = "1.2"
    scm_minimum_tls_version                = "1.2"
    http2_enabled                          = true
    application_insights_connection_string = azurerm_application_insights.main.connection_string
  }

  app_settings = merge(local.app_settings, local.token_settings)

  tags = var.tags

  # The host opens the task hub as soon as it starts: its roles must exist first.
  depends_on = [
    azurerm_role_assignment.app_storage_blob,
    azurerm_role_assignment.app_storage_queue,
    azurerm_role_assignment.app_storage_table,
    azurerm_role_assignment.app_key_vault_secrets,
    azurerm_role_assignment.app_monitoring_metrics,
  ]
}

# Key Vault references resolve with the system identity unless the site names another one.
resource "azapi_update_resource" "key_vault_reference_identity" {
  type        = "Microsoft.Web/sites@2024-04-01"
  resource_id = azurerm_function_app_flex_consumption.main.id

  body = {
    properties = {
      keyVaultReferenceIdentity = azurerm_user_assigned_identity.app.id
    }
  }
}

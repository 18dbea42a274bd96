# An AKS cluster's audit log through Event Hubs (docs/connect-a-cluster.md, "AKS through Event
# Hubs"), when aks_cluster_id is set: the cluster's diagnostic setting streams kube-audit-admin (every
# change, no get or list) to a hub, and the app's eventhub-feed function reads it with its identity
# through a consumer group of its own.
resource "azurerm_eventhub_namespace" "audit" {
  count               = local.event_hub_enabled ? 1 : 0
  name                = local.event_hub_namespace_name
  resource_group_name = azurerm_resource_group.main.name
  location            = azurerm_resource_group.main.location
  sku                 = "Standard"
  capacity            = 1
  minimum_tls_version = "1.2"
  # Azure Monitor sends through the namespace's authorization rule (a diagnostic setting names one);
  # the app never holds a key: it reads with its identity.
  local_authentication_enabled = true
  tags                         = var.tags
}

resource "azurerm_eventhub" "audit" {
  count             = local.event_hub_enabled ? 1 : 0
  name              = local.event_hub_name
  namespace_id      = azurerm_eventhub_namespace.audit[0].id
  partition_count   = var.event_hub_partition_count
  message_retention = 1
}

# Checkpoints are per consumer group: kubescribe's own, so another reader of the hub moves nothing.
resource "azurerm_eventhub_consumer_group" "kubescribe" {
  count               = local.event_hub_enabled ? 1 : 0
  name                = local.event_hub_consumer_group
  namespace_name      = azurerm_eventhub_namespace.audit[0].name
  eventhub_name       = azurerm_eventhub.audit[0].name
  resource_group_name = azurerm_resource_group.main.name
}

resource "azurerm_monitor_diagnostic_setting" "aks_audit" {
  count                          = local.event_hub_enabled ? 1 : 0
  name                           = "kubescribe-audit"
  target_resource_id             = var.aks_cluster_id
  eventhub_name                  = azurerm_eventhub.audit[0].name
  eventhub_authorization_rule_id = "${azurerm_eventhub_namespace.audit[0].id}/authorizationRules/RootManageSharedAccessKey"

  enabled_log {
    category = "kube-audit-admin"
  }
}

# Reads the hub (and keeps its checkpoints in the AzureWebJobsStorage account, as the trigger does).
resource "azurerm_role_assignment" "app_event_hubs_receiver" {
  count                = local.event_hub_enabled ? 1 : 0
  scope                = azurerm_eventhub.audit[0].id
  role_definition_name = "Azure Event Hubs Data Receiver"
  principal_id         = azurerm_user_assigned_identity.app.principal_id
  principal_type       = "ServicePrincipal"
}

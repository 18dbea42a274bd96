variable "name" {
  description = "Short name of this kubescribe installation: 3 to 12 lower-case letters or digits, starting with a letter. Every resource name is derived from it."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9]{2,11}$", var.name))
    error_message = "name must be 3 to 12 lower-case letters or digits and start with a letter (it becomes part of the storage account name)."
  }
}

variable "location" {
  description = "Azure region for every resource, e.g. westeurope. The region must offer the Flex Consumption plan."
  type        = string

  validation {
    condition     = can(regex("^[a-z][a-z0-9]+$", var.location))
    error_message = "location must be an Azure region name such as westeurope (lower case, no spaces)."
  }
}

variable "resource_group_name" {
  description = "Name of the resource group to create for kubescribe."
  type        = string

  validation {
    condition     = can(regex("^[-\\w\\.\\(\\)]{1,89}[-\\w\\(\\)]$", var.resource_group_name))
    error_message = "resource_group_name must be 1 to 90 letters, digits, '-', '_', '.', '(' or ')', and must not end with '.'."
  }
}

variable "kubescribe_config" {
  description = "The kubescribe configuration file's content (YAML or JSON, schema in the HTTP contract). Delivered as KUBESCRIBE_CONFIG_CONTENT. Secrets never go in it: every auth.tokenEnv, auth.privateKeyEnv, sources[].tokenEnv and targets[].encryption.keyEnv it names becomes an app setting that references a Key Vault secret."
  type        = string

  validation {
    condition     = can(yamldecode(var.kubescribe_config).targets[0].name)
    error_message = "kubescribe_config must be YAML or JSON with at least one entry in targets, each with a name."
  }

  validation {
    condition = alltrue([
      for env in concat(
        [for r in try(yamldecode(var.kubescribe_config).repositories, []) : r.auth.tokenEnv if can(r.auth.tokenEnv)],
        [for r in try(yamldecode(var.kubescribe_config).repositories, []) : r.auth.privateKeyEnv if can(r.auth.privateKeyEnv)],
        [for s in try(yamldecode(var.kubescribe_config).sources, []) : s.tokenEnv if can(s.tokenEnv)],
        [for t in try(yamldecode(var.kubescribe_config).targets, []) : t.encryption.keyEnv if can(t.encryption.keyEnv)],
      ) : can(regex("^[A-Za-z_][A-Za-z0-9_]{0,126}$", env)) && !startswith(upper(env), "KUBESCRIBE_") && !startswith(upper(env), "AZUREWEBJOBS") && !startswith(upper(env), "APPLICATIONINSIGHTS_") && upper(env) != "AZURE_CLIENT_ID"
    ])
    error_message = "every tokenEnv, privateKeyEnv and keyEnv in kubescribe_config must be an environment variable name (letters, digits, '_', not starting with a digit) that does not collide with KUBESCRIBE_*, AzureWebJobs*, APPLICATIONINSIGHTS_* or AZURE_CLIENT_ID."
  }
}

variable "task_hub_name" {
  description = "Durable Functions task hub name (KUBESCRIBE_TASK_HUB). Changing it starts an empty hub: drain first (see docs/deploy-azure.md)."
  type        = string
  default     = "kubescribe"

  validation {
    condition     = can(regex("^[A-Za-z][A-Za-z0-9]{2,44}$", var.task_hub_name))
    error_message = "task_hub_name must be 3 to 45 letters or digits and start with a letter."
  }
}

variable "maximum_instance_count" {
  description = "Upper bound of Flex Consumption instances the app may scale out to."
  type        = number
  default     = 40

  validation {
    condition     = var.maximum_instance_count >= 40 && var.maximum_instance_count <= 1000 && floor(var.maximum_instance_count) == var.maximum_instance_count
    error_message = "maximum_instance_count must be a whole number from 40 to 1000 (the Flex Consumption range)."
  }
}

variable "instance_memory_mb" {
  description = "Memory of each Flex Consumption instance, in MB."
  type        = number
  default     = 2048

  validation {
    condition     = contains([2048, 4096], var.instance_memory_mb)
    error_message = "instance_memory_mb must be 2048 or 4096."
  }
}

variable "always_ready_durable_instances" {
  description = "Always-ready instances for the durable group (orchestrators, entities, activities), so branch drivers and timers do not wait for a cold start."
  type        = number
  default     = 1

  validation {
    condition     = var.always_ready_durable_instances >= 1 && var.always_ready_durable_instances <= 40 && floor(var.always_ready_durable_instances) == var.always_ready_durable_instances
    error_message = "always_ready_durable_instances must be a whole number from 1 to 40."
  }
}

variable "storage_replication_type" {
  description = "Replication of the storage account that holds the task hub and the payloads."
  type        = string
  default     = "ZRS"

  validation {
    condition     = contains(["LRS", "ZRS", "GRS", "GZRS", "RAGRS", "RAGZRS"], var.storage_replication_type)
    error_message = "storage_replication_type must be one of LRS, ZRS, GRS, GZRS, RAGRS, RAGZRS."
  }
}

variable "log_retention_days" {
  description = "Retention of the Log Analytics workspace behind Application Insights, in days."
  type        = number
  default     = 30

  validation {
    condition     = var.log_retention_days >= 30 && var.log_retention_days <= 730
    error_message = "log_retention_days must be from 30 to 730."
  }
}

variable "grant_deployer_secrets_officer" {
  description = "Give the identity running Terraform the Key Vault Secrets Officer role, so it can store the Git token and source tokens after the deployment."
  type        = bool
  default     = true
}

variable "aks_cluster_id" {
  description = "Resource id of an AKS cluster whose audit log kubescribe records through Event Hubs (authors without a forwarder, docs/connect-a-cluster.md). Empty: no Event Hubs."
  type        = string
  default     = ""

  validation {
    condition     = var.aks_cluster_id == "" || can(regex("^/subscriptions/[^/]+/resource[Gg]roups/[^/]+/providers/Microsoft\\.ContainerService/managedClusters/[^/]+$", var.aks_cluster_id))
    error_message = "aks_cluster_id must be empty or an AKS cluster's resource id (/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.ContainerService/managedClusters/<name>)."
  }
}

variable "event_hub_partition_count" {
  description = "Partitions of the Event Hub that carries the cluster's audit log (used when aks_cluster_id is set)."
  type        = number
  default     = 4

  validation {
    condition     = var.event_hub_partition_count >= 1 && var.event_hub_partition_count <= 32 && floor(var.event_hub_partition_count) == var.event_hub_partition_count
    error_message = "event_hub_partition_count must be a whole number from 1 to 32."
  }
}

variable "tags" {
  description = "Tags applied to every resource."
  type        = map(string)
  default     = {}
}

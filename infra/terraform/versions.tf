terraform {
  required_version = ">= 1.9.0"

  required_providers {
    azurerm = {
      source  = "hashicorp/azurerm"
      version = ">= 4.42.0, < 5.0.0"
    }
    # azurerm_function_app_flex_consumption cannot set the site's keyVaultReferenceIdentity yet
    # (hashicorp/terraform-provider-azurerm#31439); azapi sets that one property.
    azapi = {
      source  = "azure/azapi"
      version = ">= 2.0.0, < 3.0.0"
    }
  }
}

provider "azurerm" {
  features {}

  # The storage account refuses shared keys, so the provider must use Entra ID for data-plane calls.
  storage_use_azuread = true
}

provider "azapi" {}

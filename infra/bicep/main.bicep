// kubescribe on Azure Functions Flex Consumption: the same deployment as infra/terraform.
// Deploy into an existing resource group:
//   az deployment group create -g <group> -f infra/bicep/main.bicep -p @infra/bicep/main.parameters.json
targetScope = 'resourceGroup'

@description('Short name of this kubescribe installation: 3 to 12 lower-case letters or digits, starting with a letter. Every resource name is derived from it.')
@minLength(3)
@maxLength(12)
param name string

@description('Azure region for every resource (default: the resource group\'s). The region must offer the Flex Consumption plan.')
param location string = resourceGroup().location

@description('The kubescribe configuration (schema in the HTTP contract) as an object; delivered as JSON in KUBESCRIBE_CONFIG_CONTENT. Secrets never go in it: every repositories[].auth.tokenEnv, repositories[].auth.privateKeyEnv, sources[].tokenEnv and targets[].encryption.keyEnv becomes an app setting that references a Key Vault secret.')
param kubescribeConfig object

@description('Durable Functions task hub name (KUBESCRIBE_TASK_HUB): 3 to 45 letters or digits, starting with a letter. Changing it starts an empty hub: drain first (see docs/deploy-azure.md).')
@minLength(3)
@maxLength(45)
param taskHubName string = 'kubescribe'

@description('Upper bound of Flex Consumption instances the app may scale out to.')
@minValue(40)
@maxValue(1000)
param maximumInstanceCount int = 40

@description('Memory of each Flex Consumption instance, in MB.')
@allowed([
  2048
  4096
])
param instanceMemoryMB int = 2048

@description('Always-ready instances for the durable group (orchestrators, entities, activities), so branch drivers and timers do not wait for a cold start.')
@minValue(1)
@maxValue(40)
param alwaysReadyDurableInstances int = 1

@description('Replication of the storage account that holds the task hub and the payloads.')
@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_GZRS'
  'Standard_RAGRS'
  'Standard_RAGZRS'
])
param storageSku string = 'Standard_ZRS'

@description('Retention of the Log Analytics workspace behind Application Insights, in days.')
@minValue(30)
@maxValue(730)
param logRetentionDays int = 30

@description('Object id of the user, group or service principal that will store the Git token and source tokens (Key Vault Secrets Officer). Empty: grant nobody.')
param secretsOfficerPrincipalId string = ''

@description('Resource id of an AKS cluster, in this resource group, whose audit log kubescribe records through Event Hubs (authors without a forwarder, docs/connect-a-cluster.md). Empty: no Event Hubs.')
param aksClusterId string = ''

@description('Partitions of the Event Hub that carries the cluster\'s audit log (used when aksClusterId is set).')
@minValue(1)
@maxValue(32)
param eventHubPartitionCount int = 4

@description('Tags applied to every resource.')
param tags object = {}

var suffix = substring(uniqueString(resourceGroup().id, name), 0, 6)
var identityName = 'id-${name}-${suffix}'
var storageAccountName = 'st${name}${suffix}'
var workspaceName = 'log-${name}-${suffix}'
var appInsightsName = 'appi-${name}-${suffix}'
var keyVaultName = 'kv-${name}-${suffix}'
var planName = 'plan-${name}-${suffix}'
var functionAppName = 'func-${name}-${suffix}'
var payloadContainerName = 'kubescribe-payloads'
var packageContainerName = 'app-package'

var eventHubEnabled = !empty(aksClusterId)
var eventHubNamespaceName = 'evhns-${name}-${suffix}'
var eventHubName = 'aks-audit'
var eventHubConsumerGroup = 'kubescribe'

// Built-in role definition ids (the same in every tenant).
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
var storageQueueDataContributor = '974c5e8b-45b9-4653-ba55-5f855dd0fb88'
var storageTableDataContributor = '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3'
var keyVaultSecretsUser = '4633458b-17de-408a-b874-0445c86b69e6'
var keyVaultSecretsOfficer = 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7'
var monitoringMetricsPublisher = '3913510d-42f4-4e42-8a64-420c390055eb'
var eventHubsDataReceiver = 'a638d3c7-ab3a-418d-83e6-5f17a39d4fde'

// Secrets are named in the config, never held by it: every tokenEnv becomes an app setting that
// references a Key Vault secret of the same name (Key Vault allows only letters, digits and '-').
var repositoryTokenEnvs = map(
  filter(kubescribeConfig.?repositories ?? [], repository => contains(repository.?auth ?? {}, 'tokenEnv')),
  repository => repository.auth.tokenEnv
)
// A GitHub App's private key is such a secret too; an azure-identity repository needs none: the
// app's identity (AZURE_CLIENT_ID) gets its Entra ID token for Azure DevOps.
var repositoryKeyEnvs = map(
  filter(kubescribeConfig.?repositories ?? [], repository => contains(repository.?auth ?? {}, 'privateKeyEnv')),
  repository => repository.auth.privateKeyEnv
)
// A commit signing key (signing.keyEnv, docs/signing.md) is such a secret too.
var signingKeyEnvs = map(
  filter(kubescribeConfig.?repositories ?? [], repository => contains(repository.?signing ?? {}, 'keyEnv')),
  repository => repository.signing.keyEnv
)
var sourceTokenEnvs = map(
  filter(kubescribeConfig.?sources ?? [], source => contains(source, 'tokenEnv')),
  source => source.tokenEnv
)
// A target's encryption key (targets[].encryption.keyEnv) unwraps every data key the payload store
// keeps for its Secrets: a Key Vault secret like the tokens, never a plain setting beside that store.
var encryptionKeyEnvs = map(
  filter(kubescribeConfig.targets, target => contains(target.?encryption ?? {}, 'keyEnv')),
  target => target.encryption.keyEnv
)
var tokenEnvs = union(repositoryTokenEnvs, repositoryKeyEnvs, signingKeyEnvs, sourceTokenEnvs, encryptionKeyEnvs)
var keyVaultUri = 'https://${keyVaultName}${environment().suffixes.keyvaultDns}/'

// Versionless secret URIs: a rotated secret is picked up without redeploying (see docs/deploy-azure.md).
var tokenAppSettings = map(tokenEnvs, env => {
  name: env
  value: '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/${toLower(replace(env, '_', '-'))}/)'
})
var targetNames = map(kubescribeConfig.targets, target => target.name)


// One identity for everything the app touches: the task hub, the payload store, the deployment
// package, Key Vault references and Application Insights ingestion.
resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: identityName
  location: location
  tags: tags
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: storageAccountName
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: storageSku
  }
  properties: {
    supportsHttpsTrafficOnly: true
    minimumTlsVersion: 'TLS1_2'
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

// Resource bodies (content-addressed); the branch entities keep only references to them.
resource payloadContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: payloadContainerName
  properties: {
    publicAccess: 'None'
  }
}

// Flex Consumption runs the zip uploaded here.
resource packageContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: packageContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' = {
  name: workspaceName
  location: location
  tags: tags
  properties: {
    sku: {
      name: 'PerGB2018'
    }
    retentionInDays: logRetentionDays
  }
}

// Local authentication is off, so the connection string in the app settings is not a credential:
// ingestion needs the identity (APPLICATIONINSIGHTS_AUTHENTICATION_STRING).
resource appInsights 'Microsoft.Insights/components@2020-02-02' = {
  name: appInsightsName
  location: location
  tags: tags
  kind: 'web'
  properties: {
    Application_Type: 'Node.JS'
    WorkspaceResourceId: workspace.id
    DisableLocalAuth: true
  }
}

resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: keyVaultName
  location: location
  tags: tags
  properties: {
    tenantId: subscription().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    enableRbacAuthorization: true
    enablePurgeProtection: true
    softDeleteRetentionInDays: 7
  }
}

resource plan 'Microsoft.Web/serverfarms@2024-04-01' = {
  name: planName
  location: location
  tags: tags
  kind: 'functionapp'
  sku: {
    tier: 'FlexConsumption'
    name: 'FC1'
  }
  properties: {
    reserved: true
  }
}

// Durable Functions (Azure Storage provider) needs blobs (leases, large messages), queues (control
// and work-item queues) and tables (history, instances); the Functions host needs blobs (host locks).
// The payload store and the deployment package are blobs in the same account. Read, write, delete
// and create containers is all of it: Storage Blob Data Contributor, not Owner (which also manages
// ACLs). On the account, not on containers: the host and the task hub create their containers,
// queues and tables when they first run, under names they derive (docs/deploy-azure.md).
resource appStorageBlob 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, identity.id, storageBlobDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource appStorageQueue 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, identity.id, storageQueueDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageQueueDataContributor)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource appStorageTable 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storage.id, identity.id, storageTableDataContributor)
  scope: storage
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageTableDataContributor)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

// Reads the Git token, the source tokens and the targets' encryption keys behind the Key Vault references.
resource appKeyVaultSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(keyVault.id, identity.id, keyVaultSecretsUser)
  scope: keyVault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsUser)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

// Application Insights with local authentication off accepts telemetry only from this role.
resource appMonitoringMetrics 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(appInsights.id, identity.id, monitoringMetricsPublisher)
  scope: appInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', monitoringMetricsPublisher)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

// Lets a person or pipeline store the token values (they never pass through the deployment).
resource deployerKeyVaultSecrets 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(secretsOfficerPrincipalId)) {
  name: guid(keyVault.id, secretsOfficerPrincipalId, keyVaultSecretsOfficer)
  scope: keyVault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', keyVaultSecretsOfficer)
    principalId: secretsOfficerPrincipalId
  }
}

resource functionApp 'Microsoft.Web/sites@2024-04-01' = {
  name: functionAppName
  location: location
  tags: tags
  kind: 'functionapp,linux'
  identity: {
    type: 'UserAssigned'
    userAssignedIdentities: {
      '${identity.id}': {}
    }
  }
  properties: {
    serverFarmId: plan.id
    httpsOnly: true
    // Key Vault references resolve with the system identity unless the site names another one.
    keyVaultReferenceIdentity: identity.id
    siteConfig: {
      minTlsVersion: '1.2'
      scmMinTlsVersion: '1.2'
      http20Enabled: true
      appSettings: concat(
        [
          {
            name: 'AzureWebJobsStorage__accountName'
            value: storage.name
          }
          {
            name: 'AzureWebJobsStorage__credential'
            value: 'managedidentity'
          }
          {
            name: 'AzureWebJobsStorage__clientId'
            value: identity.properties.clientId
          }
          {
            name: 'APPLICATIONINSIGHTS_CONNECTION_STRING'
            value: appInsights.properties.ConnectionString
          }
          {
            name: 'APPLICATIONINSIGHTS_AUTHENTICATION_STRING'
            value: 'Authorization=AAD;ClientId=${identity.properties.clientId}'
          }
          {
            name: 'AZURE_CLIENT_ID'
            value: identity.properties.clientId
          }
          {
            name: 'KUBESCRIBE_CONFIG_CONTENT'
            value: string(kubescribeConfig)
          }
          {
            name: 'KUBESCRIBE_PAYLOADS'
            value: 'blob:${storage.properties.primaryEndpoints.blob}${payloadContainerName}'
          }
          {
            name: 'KUBESCRIBE_TASK_HUB'
            value: taskHubName
          }
          // The eventhub-feed function's binding: an identity-based connection (the Functions host's
          // <connection>__fullyQualifiedNamespace convention) and the hub it reads. Empty without a
          // cluster: the function registers only when KUBESCRIBE_EVENTHUB_NAME is set.
          {
            name: 'KUBESCRIBE_EVENTHUB__fullyQualifiedNamespace'
            value: eventHubEnabled ? '${eventHubNamespaceName}.servicebus.windows.net' : ''
          }
          {
            name: 'KUBESCRIBE_EVENTHUB__credential'
            value: eventHubEnabled ? 'managedidentity' : ''
          }
          {
            name: 'KUBESCRIBE_EVENTHUB__clientId'
            value: eventHubEnabled ? identity.properties.clientId : ''
          }
          {
            name: 'KUBESCRIBE_EVENTHUB_NAME'
            value: eventHubEnabled ? eventHubName : ''
          }
          {
            name: 'KUBESCRIBE_EVENTHUB_CONSUMER_GROUP'
            value: eventHubEnabled ? eventHubConsumerGroup : ''
          }
        ],
        tokenAppSettings
      )
    }
    functionAppConfig: {
      deployment: {
        storage: {
          type: 'blobContainer'
          value: '${storage.properties.primaryEndpoints.blob}${packageContainerName}'
          authentication: {
            type: 'UserAssignedIdentity'
            userAssignedIdentityResourceId: identity.id
          }
        }
      }
      scaleAndConcurrency: {
        maximumInstanceCount: maximumInstanceCount
        instanceMemoryMB: instanceMemoryMB
        // The durable group runs the branch entities, the branch drivers and their activities: one
        // warm instance keeps timers and queue polling going while no webhook arrives.
        alwaysReady: [
          {
            name: 'durable'
            instanceCount: alwaysReadyDurableInstances
          }
        ]
      }
      runtime: {
        name: 'node'
        version: '22'
      }
    }
  }
  // The host opens the task hub as soon as it starts: its roles must exist first.
  dependsOn: [
    appStorageBlob
    appStorageQueue
    appStorageTable
    appKeyVaultSecrets
    appMonitoringMetrics
    payloadContainer
    packageContainer
  ]
}

// Deployments authenticate with Entra ID, not with publishing passwords.
resource scmBasicAuth 'Microsoft.Web/sites/basicPublishingCredentialsPolicies@2024-04-01' = {
  parent: functionApp
  name: 'scm'
  properties: {
    allow: false
  }
}

// An AKS cluster's audit log through Event Hubs, when aksClusterId is set: the cluster's diagnostic
// setting streams kube-audit-admin (every change, no get or list) to a hub, and the app's
// eventhub-feed function reads it with its identity through a consumer group of its own.
resource eventHubNamespace 'Microsoft.EventHub/namespaces@2024-01-01' = if (eventHubEnabled) {
  name: eventHubNamespaceName
  location: location
  tags: tags
  sku: {
    name: 'Standard'
    tier: 'Standard'
    capacity: 1
  }
  properties: {
    minimumTlsVersion: '1.2'
    // Azure Monitor sends through the namespace's authorization rule (a diagnostic setting names
    // one); the app never holds a key: it reads with its identity.
    disableLocalAuth: false
  }
}

resource eventHub 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' = if (eventHubEnabled) {
  parent: eventHubNamespace
  name: eventHubName
  properties: {
    partitionCount: eventHubPartitionCount
    messageRetentionInDays: 1
  }
}

// Checkpoints are per consumer group: kubescribe's own, so another reader of the hub moves nothing.
resource eventHubConsumer 'Microsoft.EventHub/namespaces/eventhubs/consumergroups@2024-01-01' = if (eventHubEnabled) {
  parent: eventHub
  name: eventHubConsumerGroup
}

resource aksCluster 'Microsoft.ContainerService/managedClusters@2024-05-01' existing = if (eventHubEnabled) {
  name: last(split(aksClusterId, '/'))
}

resource aksAudit 'Microsoft.Insights/diagnosticSettings@2021-05-01-preview' = if (eventHubEnabled) {
  name: 'kubescribe-audit'
  scope: aksCluster
  properties: {
    eventHubName: eventHub.name
    eventHubAuthorizationRuleId: '${eventHubNamespace.id}/authorizationRules/RootManageSharedAccessKey'
    logs: [
      {
        category: 'kube-audit-admin'
        enabled: true
      }
    ]
  }
}

// Reads the hub (and keeps its checkpoints in the AzureWebJobsStorage account, as the trigger does).
resource appEventHubsReceiver 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (eventHubEnabled) {
  name: guid(eventHub.id, identity.id, eventHubsDataReceiver)
  scope: eventHub
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', eventHubsDataReceiver)
    principalId: identity.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

var baseUrl = 'https://${functionApp.properties.defaultHostName}/api'

@description('Name of the function app: deploy the package to it.')
output functionAppName string = functionApp.name

@description('Key Vault that holds the Git token and the source tokens.')
output keyVaultName string = keyVault.name

@description('Secret to create in the Key Vault for each tokenEnv, privateKeyEnv and keyEnv of the configuration (environment variable name => secret name).')
output keyVaultSecretNames object = toObject(tokenEnvs, env => env, env => toLower(replace(env, '_', '-')))

@description('Client id of the app\'s managed identity: for a repository with auth.kind azure-identity, add this identity to the Azure DevOps organization and give it access to the repository (docs/deploy-azure.md).')
output identityClientId string = identity.properties.clientId

@description('Object (principal) id of the app\'s managed identity, as Azure DevOps and Entra ID list it.')
output identityPrincipalId string = identity.properties.principalId

@description('Storage account of the task hub, the payloads and the deployment package.')
output storageAccountName string = storage.name

@description('Per target: the URLs to give a cluster (audit webhook backend, event forwarder, snapshots).')
output webhookUrls object = toObject(targetNames, target => target, target => {
  audit: '${baseUrl}/v1/targets/${uriComponent(target)}/audit'
  events: '${baseUrl}/v1/targets/${uriComponent(target)}/events'
  snapshots: '${baseUrl}/v1/targets/${uriComponent(target)}/snapshots'
})

@description('URL for the validating admission webhook that registers CommitRequest saves.')
output admissionWebhookUrl string = '${baseUrl}/v1/admission'

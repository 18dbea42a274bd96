// The managed identity case of Azure Repos (repositories[].auth.kind: azure-identity): the app's
// user-assigned identity is the one its Entra ID token comes from (AZURE_CLIENT_ID), the deployment
// names that identity for the Azure DevOps organization, and such a repository needs no secret,
// while a GitHub App's private key arrives like a token, through a Key Vault reference.
import { generateKeyPairSync } from 'node:crypto';
import { ConfigSecretMissing, loadConfig } from '../../shared/config';
import { appSettings } from './terraform-app-settings';
import { loadTerraform, type TerraformModule } from './terraform-model';

const IDENTITY = 'azurerm_user_assigned_identity.app';

describe('the deployment for an Azure Repos repository reached with the app identity', () => {
  let module: TerraformModule;
  beforeAll(async () => {
    module = await loadTerraform();
  });

  it('gives the app its identity client id as AZURE_CLIENT_ID, and outputs that identity to add to Azure DevOps', () => {
    expect(appSettings(module).literal.get('AZURE_CLIENT_ID')).toBe(`\${${IDENTITY}.client_id}`);
    expect(module.outputs.get('identity_client_id')?.value).toBe(`\${${IDENTITY}.client_id}`);
    expect(module.outputs.get('identity_principal_id')?.value).toBe(`\${${IDENTITY}.principal_id}`);
    expect(String(module.outputs.get('identity_client_id')?.description)).toMatch(/Azure DevOps/);
  });

  it('starts the app with an azure-identity repository and no secret, and asks for a GitHub App key by its variable', async () => {
    const config = {
      repositories: [
        {
          name: 'azdo',
          url: 'https://dev.azure.com/acme/fleet/_git/state',
          auth: { kind: 'azure-identity' },
        },
        {
          name: 'gh',
          url: 'https://github.com/acme/state.git',
          auth: { kind: 'github-app', appId: 1, installationId: 2, privateKeyEnv: 'GH_APP_KEY' },
        },
      ],
      targets: [
        { name: 'prod', repository: 'azdo', branch: 'main' },
        { name: 'dev', repository: 'gh', branch: 'main' },
      ],
    };
    const env = {
      AZURE_CLIENT_ID: '6f1d1b5e-0000-4000-8000-00000000c11d',
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config),
      KUBESCRIBE_PAYLOADS: 'blob:https://stkscribe1a2b3c.blob.core.windows.net/kubescribe-payloads',
    };
    const readFile = () => Promise.reject(new Error('no file on Azure'));
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();

    const withoutKey = loadConfig({ env, readFile });
    const loaded = await loadConfig({ env: { ...env, GH_APP_KEY: key }, readFile });

    await expect(withoutKey).rejects.toBeInstanceOf(ConfigSecretMissing);
    await expect(withoutKey).rejects.toThrow(/GH_APP_KEY/);
    expect(loaded.secrets.repositoryTokens).toEqual({});
    expect(Object.keys(loaded.secrets.repositoryAppKeys ?? {})).toEqual(['gh']);
  });
});

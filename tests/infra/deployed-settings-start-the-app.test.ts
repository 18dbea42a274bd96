import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSecretMissing, loadConfig } from '../../shared/config';
import { appSettings } from './terraform-app-settings';
import { loadTerraform, TERRAFORM_DIR } from './terraform-model';

// What Azure would put in the environment: the Terraform app settings with their references
// resolved to sample values, and each Key Vault reference resolved to the secret's value.
const SAMPLES: Record<string, string> = {
  'azurerm_storage_account.main.primary_blob_endpoint': 'https://stkscribe1a2b3c.blob.core.windows.net/',
  'azurerm_storage_account.main.name': 'stkscribe1a2b3c',
  'azurerm_user_assigned_identity.app.client_id': '6f1d1b5e-0000-4000-8000-00000000c11d',
  'var.task_hub_name': 'kubescribe',
};

async function exampleConfig(): Promise<string> {
  const text = readFileSync(join(TERRAFORM_DIR, 'kubescribe.tfvars.example'), 'utf8');
  const parsed = await loadTerraform({ 'example.tf': `locals {\n${text}\n}\n` });
  return String(parsed.locals.get('kubescribe_config'));
}

async function terraformEnvironment(tokens: Record<string, string>): Promise<Record<string, string>> {
  const module = await loadTerraform();
  const config = await exampleConfig();
  const samples: Record<string, string> = {
    ...SAMPLES,
    'var.kubescribe_config': config,
    'azurerm_storage_container.payloads.name': String(module.locals.get('payload_container_name')),
  };
  const env: Record<string, string> = {};
  for (const [name, value] of appSettings(module).literal) {
    // The example names no AKS cluster (`aks_cluster_id`), so every Event Hubs setting is empty.
    const text = String(value).replace(/^\$\{local\.event_hub_enabled \? .* : ""\}$/, '');
    env[name] = text.replace(/\$\{([^}]+)\}/g, (_, reference: string) => {
      const sample = samples[reference];
      if (sample === undefined) throw new Error(`no sample value for ${reference} in ${name}`);
      return sample;
    });
  }
  return { ...env, ...tokens };
}

describe('the app settings of the Terraform deployment, with the example configuration', () => {
  it('start the app: the config comes from KUBESCRIBE_CONFIG_CONTENT, payloads go to the blob container', async () => {
    const env = await terraformEnvironment({
      GIT_TOKEN: 'git-token-value',
      CLUSTER_A_TOKEN: 'cluster-a-value',
    });
    const loaded = await loadConfig({ env, readFile: () => Promise.reject(new Error('no file on Azure')) });
    expect(loaded.origin).toEqual({ kind: 'content' });
    expect(loaded.payloads).toEqual({
      kind: 'blob',
      containerUrl: 'https://stkscribe1a2b3c.blob.core.windows.net/kubescribe-payloads',
    });
    expect(Object.keys(loaded.secrets.repositoryTokens)).toEqual(['platform']);
    expect(Object.keys(loaded.secrets.sourceTokens)).toEqual(['cluster-a']);
    expect(env.KUBESCRIBE_TASK_HUB).toBe('kubescribe');
  });

  it('refuse to start, naming the variable, when a token the configuration names is not delivered', async () => {
    const env = await terraformEnvironment({ GIT_TOKEN: 'git-token-value' });
    const failure = loadConfig({ env, readFile: () => Promise.reject(new Error('no file on Azure')) });
    await expect(failure).rejects.toBeInstanceOf(ConfigSecretMissing);
    await expect(failure).rejects.toThrow(/CLUSTER_A_TOKEN/);
  });
});

describe('the Bicep parameters example', () => {
  it('holds a configuration the app accepts as KUBESCRIBE_CONFIG_CONTENT (JSON)', async () => {
    const example = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'infra', 'bicep', 'main.parameters.example.json'), 'utf8'),
    ) as {
      parameters: { kubescribeConfig: { value: unknown } };
    };
    const loaded = await loadConfig({
      env: {
        KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(example.parameters.kubescribeConfig.value),
        KUBESCRIBE_PAYLOADS: 'blob:https://stkscribe1a2b3c.blob.core.windows.net/kubescribe-payloads',
        GIT_TOKEN: 'git-token-value',
        CLUSTER_A_TOKEN: 'cluster-a-value',
      },
      readFile: () => Promise.reject(new Error('no file on Azure')),
    });
    expect(loaded.config.targets.map((target) => target.name)).toEqual(['prod']);
  });
});

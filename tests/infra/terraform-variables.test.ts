import { loadTerraform, type TerraformModule } from './terraform-model';

describe('the Terraform variable validations', () => {
  let module: TerraformModule;
  beforeAll(async () => {
    module = await loadTerraform();
  });

  /** The RE2 pattern of a `can(regex("...", ...))` condition, as a JavaScript RegExp. */
  function patternOf(variable: string, index = 0): RegExp {
    const conditions = module.variables.get(variable)?.validation as { condition: string }[] | undefined;
    const quoted = /regex\("((?:[^"\\]|\\.)*)"/.exec(conditions?.[index]?.condition ?? '')?.[1];
    if (quoted === undefined) throw new Error(`${variable} has no regex validation`);
    return new RegExp(quoted.replace(/\\\\/g, '\\'));
  }

  it.each([
    [
      'name',
      ['kscribe', 'abc', 'kubescribe01'],
      ['KScribe', 'ks', 'kube-scribe', 'kubescribe012', '1scribe'],
    ],
    ['location', ['westeurope', 'eastus2'], ['West Europe', 'west-europe', '']],
    ['resource_group_name', ['rg-kubescribe', 'rg_(prod).1'], ['rg.', 'rg kube', '']],
    ['task_hub_name', ['kubescribe', 'Hub2'], ['kube-scribe', '1hub', 'ab']],
    [
      'aks_cluster_id',
      [
        '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-aks/providers/Microsoft.ContainerService/managedClusters/aks-prod',
        '/subscriptions/0000/resourcegroups/rg/providers/Microsoft.ContainerService/managedClusters/a',
      ],
      [
        'aks-prod',
        '/subscriptions/0000/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm',
        '/subscriptions/0000/resourceGroups/rg/providers/MicrosoftXContainerService/managedClusters/a',
      ],
    ],
  ])('accepts good and refuses bad values of %s', (variable, good, bad) => {
    const pattern = patternOf(variable);
    expect(good.filter((value) => !pattern.test(value))).toEqual([]);
    expect(bad.filter((value) => pattern.test(value))).toEqual([]);
  });

  it('accepts tokenEnv names that are environment variable names only', () => {
    const pattern = patternOf('kubescribe_config', 1);
    expect(['GIT_TOKEN', '_T', 'cluster_a'].filter((value) => !pattern.test(value))).toEqual([]);
    expect(['GIT-TOKEN', '1TOKEN', 'A B', ''].filter((value) => pattern.test(value))).toEqual([]);
  });

  it('derives resource names within Azure limits from the longest allowed name', () => {
    const longest = 'k'.repeat(12);
    const names = Object.fromEntries(
      [...module.locals]
        .filter(([name]) => name.endsWith('_name'))
        .map(([name, value]) => [
          name,
          String(value).replace(`\${var.name}`, longest).replace(`\${local.suffix}`, 'abcdef'),
        ]),
    );
    expect(names.storage_account_name).toMatch(/^[a-z0-9]{3,24}$/);
    expect(names.key_vault_name).toMatch(/^[a-zA-Z][-a-zA-Z0-9]{1,22}[a-zA-Z0-9]$/);
    // Longer function app names can collide on the host id the runtime derives from the name.
    expect(names.function_app_name?.length).toBeLessThanOrEqual(32);
    // Event Hubs namespaces: 6-50 letters, digits and '-', starting with a letter.
    expect(names.event_hub_namespace_name).toMatch(/^[a-zA-Z][-a-zA-Z0-9]{4,48}[a-zA-Z0-9]$/);
    expect(module.locals.get('suffix')).toMatch(/^\$\{substr\(sha1\(.*\), 0, 6\)\}$/);
  });
});

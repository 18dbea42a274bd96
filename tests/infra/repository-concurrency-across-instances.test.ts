// limits.repositoryConcurrency is counted per worker process (shared/app/activities/repository-admission.ts
// keeps its count in the process's memory), so across a scaled-out app the bound is the product with
// the instances, which the infrastructure's maximum instance count bounds. docs/deploy-azure.md
// states that arithmetic with the shipped defaults: this checks it against them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFileSchema } from '../../shared/config/schema';
import { loadTerraform } from './terraform-model';

const ROOT = join(__dirname, '..', '..');

it("states one repository's Git activities across instances from the defaults the app and infrastructure ship", async () => {
  const terraform = await loadTerraform();
  const instances = Number(terraform.variables.get('maximum_instance_count')?.default);
  const bicep = readFileSync(join(ROOT, 'infra', 'bicep', 'main.bicep'), 'utf8');
  expect(Number(/^param maximumInstanceCount int = (\d+)$/m.exec(bicep)?.[1])).toBe(instances);
  const config = configFileSchema.parse({
    repositories: [{ name: 'state', url: 'https://example.invalid/state.git' }],
    targets: [{ name: 'prod', repository: 'state', branch: 'main', path: 'clusters/prod' }],
  });
  const perProcess = config.limits.repositoryConcurrency;
  const workerProcesses = 1; // FUNCTIONS_WORKER_PROCESS_COUNT: no infrastructure here sets it
  for (const file of [join('infra', 'bicep', 'main.bicep'), join('infra', 'terraform', 'main.tf')])
    expect(readFileSync(join(ROOT, file), 'utf8')).not.toContain('FUNCTIONS_WORKER_PROCESS_COUNT');
  const bound = perProcess * workerProcesses * instances;
  const docs = readFileSync(join(ROOT, 'docs', 'deploy-azure.md'), 'utf8').replace(/\s+/g, ' ');
  expect(docs).toContain(
    `a repository with ${bound} branches or more can meet ${perProcess} × ${workerProcesses} × ${instances} = ${bound} Git activities at once`,
  );
  expect(docs).toContain(`whose default is the Flex Consumption minimum, ${instances}`);
});

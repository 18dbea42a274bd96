// Validates Kubernetes objects (a JSON array on stdin) against the OpenAPI schemas that
// kubernetes-models and @kubernetes-models/cert-manager carry (offline). Prints a JSON array with one
// entry per object: its kind and name and the schema's complaint, or null when it is valid.
// An ES module of its own because both packages are ESM-only and jest runs CommonJS.
import { readFileSync } from 'node:fs';

const packages = {
  'cert-manager.io': '@kubernetes-models/cert-manager',
};

async function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg = packages[group] ?? 'kubernetes-models';
  const module = await import(`${pkg}/${group ? `${group}/` : ''}${version}`);
  return module[kind];
}

const objects = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const object of objects) {
  const where = `${object.kind}/${object.metadata?.name}`;
  let problem = null;
  try {
    const Model = await modelOf(object.apiVersion, object.kind);
    if (!Model) problem = `no schema for ${object.apiVersion} ${object.kind}`;
    else new Model(object).validate();
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  results.push({ object: where, problem });
}
process.stdout.write(JSON.stringify(results));

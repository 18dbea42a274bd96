import type { TerraformModule } from './terraform-model';

/** References to resources, data sources, locals or variables that the module does not declare. */
export function undeclaredReferences(module: TerraformModule): string[] {
  const text = JSON.stringify({
    resources: [...module.resources],
    locals: [...module.locals],
    outputs: [...module.outputs],
    variables: [...module.variables],
  });
  const undeclared = new Set<string>();
  const withoutData = text.replace(/\bdata\.([a-z0-9_]+)\.([a-z0-9_]+)/g, (reference, type, name) => {
    if (!module.resources.has(`data.${type}.${name}`)) undeclared.add(reference);
    return '';
  });
  for (const [reference, type, name] of withoutData.matchAll(
    /\b((?:azurerm|azapi)_[a-z0-9_]+)\.([a-z0-9_]+)/g,
  )) {
    if (!module.resources.has(`${type}.${name}`)) undeclared.add(reference);
  }
  for (const [reference, name] of text.matchAll(/\blocal\.([a-z0-9_]+)/g)) {
    if (!module.locals.has(name!)) undeclared.add(reference);
  }
  for (const [reference, name] of text.matchAll(/\bvar\.([a-z0-9_]+)/g)) {
    if (!module.variables.has(name!)) undeclared.add(reference);
  }
  return [...undeclared];
}

import { type Attributes, resourcesOfType, type TerraformModule } from './terraform-model';

const FUNCTION_APP = 'azurerm_function_app_flex_consumption';

/** The single Flex Consumption function app of the deployment. */
export function functionApp(module: TerraformModule): [string, Attributes] {
  const apps = resourcesOfType(module, FUNCTION_APP);
  if (apps.length !== 1) throw new Error(`expected one ${FUNCTION_APP}, found ${apps.length}`);
  return apps[0]!;
}

/** How the app settings are assembled: a literal map and `for` expressions, each from a local. */
export type AppSettings = {
  literal: Map<string, unknown>;
  /** `for` expressions merged into the settings, keyed by the local that holds them. */
  generated: Map<string, string>;
  problems: string[];
};

/**
 * Resolves the function app's `app_settings`: a literal map, a local holding one, or
 * `merge(local.a, local.b, ...)` of such locals and of `for` expressions.
 */
export function appSettings(module: TerraformModule): AppSettings {
  const [address, app] = functionApp(module);
  const result: AppSettings = { literal: new Map(), generated: new Map(), problems: [] };
  const expression = app.app_settings;
  const parts: unknown[] = [];
  if (typeof expression === 'string') {
    const merged = /^\$\{merge\(([^()]*)\)\}$/.exec(expression);
    const single = /^\$\{(local\.[a-z0-9_]+)\}$/.exec(expression);
    const references = merged ? merged[1]!.split(',').map((part) => part.trim()) : single ? [single[1]!] : [];
    if (references.length === 0)
      result.problems.push(`${address}.app_settings is an expression this check cannot read`);
    for (const reference of references) {
      const local = /^local\.([a-z0-9_]+)$/.exec(reference)?.[1];
      if (local === undefined || !module.locals.has(local)) {
        result.problems.push(
          `${address}.app_settings merges ${reference}, which is not a local of the module`,
        );
        continue;
      }
      const value = module.locals.get(local);
      if (typeof value === 'string') result.generated.set(local, value);
      else parts.push(value);
    }
  } else {
    parts.push(expression);
  }
  for (const part of parts) {
    if (typeof part !== 'object' || part === null || Array.isArray(part)) {
      result.problems.push(`${address}.app_settings has a part that is not a map`);
      continue;
    }
    for (const [name, value] of Object.entries(part)) result.literal.set(name, value);
  }
  return result;
}

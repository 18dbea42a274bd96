import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The Terraform deployment's folder in the repository. */
export const TERRAFORM_DIR = join(__dirname, '..', '..', 'infra', 'terraform');

// @cdktf/hcl2json's typings reference the DOM lib, which would leak into every file of the
// project's type check; a typed require keeps the one function this needs and nothing else.
const hcl2json = require('@cdktf/hcl2json') as {
  parse(filename: string, contents: string): Promise<Record<string, unknown>>;
};

/** One block's attributes as hcl2json gives them: literals, nested block lists, `${...}` expressions. */
export type Attributes = Record<string, unknown>;

const blockList = z.array(z.record(z.string(), z.unknown()));
const fileSchema = z.looseObject({
  terraform: blockList.optional(),
  provider: z.record(z.string(), blockList).optional(),
  variable: z.record(z.string(), blockList).optional(),
  locals: blockList.optional(),
  data: z.record(z.string(), z.record(z.string(), blockList)).optional(),
  resource: z.record(z.string(), z.record(z.string(), blockList)).optional(),
  output: z.record(z.string(), blockList).optional(),
});

/** Every `.tf` file of a folder, parsed and merged the way Terraform merges a module. */
export type TerraformModule = {
  files: string[];
  resources: Map<string, Attributes>;
  variables: Map<string, Attributes>;
  outputs: Map<string, Attributes>;
  locals: Map<string, unknown>;
  providers: Map<string, Attributes>;
};

/** Reads the `.tf` files of the Terraform deployment (or given texts, for rule tests). */
export async function loadTerraform(
  texts: Record<string, string> = readTerraformTexts(TERRAFORM_DIR),
): Promise<TerraformModule> {
  const module: TerraformModule = {
    files: Object.keys(texts).sort(),
    resources: new Map(),
    variables: new Map(),
    outputs: new Map(),
    locals: new Map(),
    providers: new Map(),
  };
  for (const file of module.files) {
    const parsed = fileSchema.parse(await hcl2json.parse(file, texts[file] ?? ''));
    for (const [type, byName] of Object.entries(parsed.resource ?? {})) {
      for (const [name, blocks] of Object.entries(byName))
        addUnique(module.resources, `${type}.${name}`, blocks[0]);
    }
    for (const [type, byName] of Object.entries(parsed.data ?? {})) {
      for (const [name, blocks] of Object.entries(byName))
        addUnique(module.resources, `data.${type}.${name}`, blocks[0]);
    }
    for (const [name, blocks] of Object.entries(parsed.variable ?? {}))
      addUnique(module.variables, name, blocks[0]);
    for (const [name, blocks] of Object.entries(parsed.output ?? {}))
      addUnique(module.outputs, name, blocks[0]);
    for (const [name, blocks] of Object.entries(parsed.provider ?? {}))
      addUnique(module.providers, name, blocks[0]);
    for (const block of parsed.locals ?? []) {
      for (const [name, value] of Object.entries(block)) addUnique(module.locals, name, value);
    }
  }
  return module;
}

/** The `.tf` files of a folder by name. */
export function readTerraformTexts(dir: string): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.tf'))) {
    texts[file] = readFileSync(join(dir, file), 'utf8');
  }
  return texts;
}

/** The resources of one type, by address (`type.name`). */
export function resourcesOfType(module: TerraformModule, type: string): [string, Attributes][] {
  return [...module.resources].filter(([address]) => address.startsWith(`${type}.`));
}

/** The first nested block of an attribute (`site_config`, `identity`...), or an empty one. */
export function block(attributes: Attributes | undefined, name: string): Attributes {
  const value = attributes?.[name];
  return Array.isArray(value) && typeof value[0] === 'object' && value[0] !== null
    ? (value[0] as Attributes)
    : {};
}

/** The resource address (`type.name`) a `${type.name.attr}` expression points at, if it is one. */
export function referencedResource(expression: unknown): string | undefined {
  if (typeof expression !== 'string') return undefined;
  // `type.name[0].attr`: a resource declared with `count`.
  return /^\$\{([a-z0-9_]+\.[a-z0-9_]+)(?:\[0\])?\.[a-z0-9_]+\}$/.exec(expression)?.[1];
}

function addUnique<T>(map: Map<string, T>, key: string, value: T | undefined): void {
  if (value === undefined) return;
  // Terraform refuses a module that declares the same name twice; so does this reader.
  if (map.has(key)) throw new Error(`${key} is declared twice`);
  map.set(key, value);
}

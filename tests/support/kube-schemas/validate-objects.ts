import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** One object's verdict: its kind/name and the schema's complaint, or null when valid. */
export type SchemaVerdict = { object: string; problem: string | null };

/**
 * Validates Kubernetes objects against the Kubernetes (and cert-manager) OpenAPI schemas, offline, in
 * a child process (the schema packages are ESM-only).
 */
export function validateObjects(objects: unknown[]): SchemaVerdict[] {
  const out = execFileSync(process.execPath, [join(__dirname, 'schema-check-process.mjs')], {
    input: JSON.stringify(objects),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as SchemaVerdict[];
}

/** Renders a kustomization with `kubectl kustomize` into its objects. */
export function kustomize(dir: string): Record<string, unknown>[] {
  const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return parseAllDocuments(text).map((document) => document.toJS() as Record<string, unknown>);
}

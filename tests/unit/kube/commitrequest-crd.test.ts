import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { COMMIT_REQUEST } from '../../../shared/kube/commit-request-api';
import { saveStatusSchema } from '../../../shared/kube/save-status';
import { commitRequestSpecSchema } from '../../../shared/resources/commit-request';

type SchemaNode = {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  required?: string[];
  [keyword: string]: unknown;
};

const crd = parse(readFileSync(join(__dirname, '../../../deploy/crds/commitrequest.yaml'), 'utf8'));
const version = crd.spec.versions[0];
const root: SchemaNode = version.schema.openAPIV3Schema;

const COMPARED = ['type', 'enum', 'pattern', 'minLength', 'maxLength', 'format'] as const;

/** Keywords only the CRD states, each with why the app's schema cannot show it. */
const CRD_ONLY: Record<string, string[]> = {
  // Target names are configuration names (DNS labels, at most 63); the bound also caps the CEL cost of `self == oldSelf`.
  'spec.target': ['maxLength'],
  // The app checks durations by parsing them; the pattern's agreement is tested by example below.
  'spec.window.attachTimeout': ['pattern', 'maxLength'],
  'spec.window.idleTimeout': ['pattern', 'maxLength'],
  'spec.window.maxDuration': ['pattern', 'maxLength'],
};

/** Lists every difference between the app's JSON schema (from zod) and the CRD's, by path. */
function differences(app: SchemaNode, crdNode: SchemaNode | undefined, path: string): string[] {
  if (crdNode === undefined) return [`${path}: missing from the CRD`];
  const found: string[] = [];
  // zod states both a date-time format and its regex; the CRD states the format.
  const appKeywords = app.format === 'date-time' ? COMPARED.filter((k) => k !== 'pattern') : COMPARED;
  for (const keyword of appKeywords) {
    const allowed = CRD_ONLY[path]?.includes(keyword) && app[keyword] === undefined;
    if (!allowed && JSON.stringify(app[keyword]) !== JSON.stringify(crdNode[keyword])) {
      found.push(
        `${path}.${keyword}: app ${JSON.stringify(app[keyword])}, CRD ${JSON.stringify(crdNode[keyword])}`,
      );
    }
  }
  const sorted = (names: string[] | undefined) => JSON.stringify([...(names ?? [])].sort());
  if (sorted(app.required) !== sorted(crdNode.required)) {
    found.push(`${path}.required: app ${sorted(app.required)}, CRD ${sorted(crdNode.required)}`);
  }
  const names = new Set([...Object.keys(app.properties ?? {}), ...Object.keys(crdNode.properties ?? {})]);
  for (const name of names) {
    const appChild = app.properties?.[name];
    if (appChild === undefined) found.push(`${path}.${name}: only in the CRD`);
    else found.push(...differences(appChild, crdNode.properties?.[name], `${path}.${name}`));
  }
  if (app.items !== undefined) found.push(...differences(app.items, crdNode.items, `${path}[]`));
  return found;
}

const jsonSchemaOf = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as SchemaNode;

describe('the CommitRequest CRD', () => {
  it('names the kubescribe.dev/v1alpha1 commitrequests resource the projection writes, namespaced', () => {
    expect(crd.apiVersion).toBe('apiextensions.k8s.io/v1');
    expect(crd.metadata.name).toBe(`${COMMIT_REQUEST.plural}.${COMMIT_REQUEST.group}`);
    expect(crd.spec.group).toBe(COMMIT_REQUEST.group);
    expect(crd.spec.names).toMatchObject({ plural: COMMIT_REQUEST.plural, kind: COMMIT_REQUEST.kind });
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({ name: COMMIT_REQUEST.version, served: true, storage: true });
  });

  it('is a structural schema, as the API server requires: every node typed, no additionalProperties beside properties', () => {
    const problems: string[] = [];
    const walk = (node: SchemaNode, path: string) => {
      if (node.type === undefined) problems.push(`${path}: no type`);
      if (node.properties !== undefined && node.additionalProperties !== undefined) {
        problems.push(`${path}: additionalProperties beside properties`);
      }
      for (const [name, child] of Object.entries(node.properties ?? {})) walk(child, `${path}.${name}`);
      if (node.items !== undefined) walk(node.items, `${path}[]`);
    };
    walk(root, 'openAPIV3Schema');
    expect(problems).toEqual([]);
  });

  it('has a status subresource, so users cannot write status and kubescribe cannot write spec', () => {
    expect(version.subresources).toEqual({ status: {} });
  });

  it('accepts exactly the spec fields, enums and bounds the app accepts for a CommitRequest', () => {
    expect(differences(jsonSchemaOf(commitRequestSpecSchema), root.properties?.spec, 'spec')).toEqual([]);
  });

  it('describes exactly the save status the projection writes', () => {
    expect(differences(jsonSchemaOf(saveStatusSchema), root.properties?.status, 'status')).toEqual([]);
  });

  it('keeps one condition per type, as the projection writes them', () => {
    const conditions = root.properties?.status?.properties?.conditions;
    expect(conditions?.['x-kubernetes-list-type']).toBe('map');
    expect(conditions?.['x-kubernetes-list-map-keys']).toEqual(['type']);
  });

  it.each([
    ['2s', true],
    ['1m30s', true],
    ['500ms', true],
    ['0', true],
    ['1.5s', true],
    ['.5s', true],
    ['5m', true],
    ['2', false],
    ['-1s', false],
    ['1d', false],
    ['', false],
    ['2 s', false],
  ])('agrees with the app on whether %j is a duration', (text, valid) => {
    const durationNode = root.properties?.spec?.properties?.window?.properties?.maxDuration;
    const crdAccepts = new RegExp(String(durationNode?.pattern), 'u').test(text);
    const appAccepts = commitRequestSpecSchema.safeParse({
      target: 'prod',
      window: { maxDuration: text },
    }).success;
    expect([crdAccepts, appAccepts]).toEqual([valid, valid]);
  });

  it('shows phase, outcome and commit in kubectl get, each a field of the status', () => {
    const columns: { name: string; jsonPath: string }[] = version.additionalPrinterColumns;
    for (const field of ['phase', 'outcome', 'commit']) {
      const column = columns.find((c) => c.jsonPath === `.status.${field}`);
      expect(column).toBeDefined();
      expect(root.properties?.status?.properties?.[field]).toBeDefined();
    }
  });

  it('states the app cross-field rules and immutability as CEL validations', () => {
    const spec = root.properties?.spec as SchemaNode;
    const window = spec.properties?.window as SchemaNode;
    const messages = (node: SchemaNode) =>
      ((node['x-kubernetes-validations'] ?? []) as { message: string }[]).map((v) => v.message);
    expect(messages(spec)).toEqual([
      'a CommitRequest is immutable; create another one',
      'message is required when whenNothingToCommit is CommitEmpty',
    ]);
    expect(messages(window)).toEqual([
      'attachTimeout must be more than 0s when attach is Next',
      'idleTimeout must not be longer than maxDuration',
    ]);
  });
});

import { z } from 'zod';
import { isStrippedLabel } from './sanitize';

/**
 * Label and field selectors of a collection request (`labelSelector`, `fieldSelector` in its
 * `requestURI`), parsed as the apiserver parses them (k8s.io/apimachinery pkg/labels/selector.go
 * `Parse`, pkg/fields/selector.go `ParseSelector`) and evaluated against the files kubescribe holds.
 * A selector that the held files cannot answer is refused, never guessed: a label that sanitizing
 * strips from every file, or a field other than `metadata.name` and `metadata.namespace` (the only
 * fields every recorded file keeps as the cluster has them).
 */
const labelRequirementSchema = z.strictObject({
  key: z.string().min(1),
  operator: z.enum(['in', 'notin', 'exists', '!', 'gt', 'lt']),
  values: z.array(z.string()),
});
const fieldRequirementSchema = z.strictObject({
  field: z.enum(['metadata.name', 'metadata.namespace']),
  operator: z.enum(['=', '!=']),
  value: z.string(),
});
export const selectorSchema = z.strictObject({
  labels: z.array(labelRequirementSchema),
  fields: z.array(fieldRequirementSchema),
});
export type Selector = z.output<typeof selectorSchema>;
type LabelRequirement = z.output<typeof labelRequirementSchema>;

export type SelectorReading = { selector: Selector; text: string } | { refused: string };

// k8s.io/apimachinery pkg/util/validation: a qualified name with an optional DNS-subdomain prefix
const LABEL_KEY = /^(?:[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const SET = /^(\S+)\s+(in|notin)\s*\(([^()]*)\)$/;
const COMPARISON = /^([^\s=!<>]+)\s*(==|=|!=|>|<)\s*(\S*)$/;

/** The selectors of a request URI's query, or why they cannot be evaluated against held files. */
export function readSelectors(requestURI: string): SelectorReading {
  const query = requestURI.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : requestURI.slice(query + 1));
  const labelText = params.get('labelSelector') ?? '';
  const fieldText = params.get('fieldSelector') ?? '';
  const labels = parseLabels(labelText);
  if ('refused' in labels) return labels;
  const fields = parseFields(fieldText);
  if ('refused' in fields) return fields;
  const text = [labelText.trim(), fieldText.trim()].filter((part) => part !== '').join(', ');
  return { selector: { labels: labels.requirements, fields: fields.requirements }, text };
}

function parseLabels(text: string): { requirements: LabelRequirement[] } | { refused: string } {
  const requirements: LabelRequirement[] = [];
  for (const term of splitTopLevel(text)) {
    const requirement = parseLabelTerm(term);
    if (!requirement) return { refused: `label selector term "${term}" cannot be parsed` };
    if (isStrippedLabel(requirement.key))
      return {
        refused: `label ${requirement.key} is stripped from every recorded file, so the files it selects are not known`,
      };
    requirements.push(requirement);
  }
  return { requirements };
}

function parseLabelTerm(term: string): LabelRequirement | undefined {
  const valid = (key: string, values: string[]) =>
    LABEL_KEY.test(key) && values.every((value) => LABEL_VALUE.test(value));
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    return valid(key, []) ? { key, operator: '!', values: [] } : undefined;
  }
  const set = SET.exec(term);
  if (set) {
    const values = set[3]!
      .split(',')
      .map((value) => value.trim())
      .filter((value) => value !== '');
    const operator = set[2] === 'in' ? 'in' : 'notin';
    return valid(set[1]!, values) ? { key: set[1]!, operator, values } : undefined;
  }
  const comparison = COMPARISON.exec(term);
  if (comparison) {
    const [, key, sign, value] = comparison as unknown as [string, string, string, string];
    if (sign === '>' || sign === '<') {
      if (!/^-?\d+$/.test(value) || !LABEL_KEY.test(key)) return undefined;
      return { key, operator: sign === '>' ? 'gt' : 'lt', values: [value] };
    }
    return valid(key, [value])
      ? { key, operator: sign === '!=' ? 'notin' : 'in', values: [value] }
      : undefined;
  }
  return valid(term, []) ? { key: term, operator: 'exists', values: [] } : undefined;
}

/** The terms of a selector: split at commas outside parentheses, blanks dropped. */
function splitTopLevel(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (i === text.length || (c === ',' && depth === 0)) {
      const term = text.slice(start, i).trim();
      if (term !== '') terms.push(term);
      start = i + 1;
    }
  }
  return terms;
}

function parseFields(text: string): { requirements: Selector['fields'] } | { refused: string } {
  const requirements: Selector['fields'] = [];
  // pkg/fields/selector.go: `\,`, `\=` and `\\` escape inside a value
  for (const term of splitEscaped(text, ',')) {
    if (term.trim() === '') continue;
    const match = /^([^=!]+)(==|=|!=)(.*)$/s.exec(term);
    if (!match) return { refused: `field selector term "${term}" cannot be parsed` };
    const field = match[1]!.trim();
    if (field !== 'metadata.name' && field !== 'metadata.namespace')
      return {
        refused: `field ${field} is not recorded in the files kubescribe holds (only metadata.name and metadata.namespace are)`,
      };
    const value = match[3]!.replace(/\\(.)/g, '$1');
    requirements.push({ field, operator: match[2] === '!=' ? '!=' : '=', value });
  }
  return { requirements };
}

function splitEscaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length) {
      current += c + text[i + 1];
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/** What a selector reads of a held object. */
export interface SelectedObject {
  name: string;
  namespace?: string;
  labels: Readonly<Record<string, string>>;
}

/** Whether the object satisfies every requirement (k8s.io/apimachinery `Requirement.Matches`). */
export function selects(selector: Selector, object: SelectedObject): boolean {
  return (
    selector.labels.every((requirement) => matchesLabel(requirement, object.labels)) &&
    selector.fields.every(({ field, operator, value }) => {
      const actual = field === 'metadata.name' ? object.name : (object.namespace ?? '');
      return operator === '=' ? actual === value : actual !== value;
    })
  );
}

function matchesLabel({ key, operator, values }: LabelRequirement, labels: Readonly<Record<string, string>>) {
  const has = Object.hasOwn(labels, key);
  const value = labels[key];
  switch (operator) {
    case 'in':
      return has && values.includes(value!);
    case 'notin':
      return !has || !values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const difference = BigInt(value!) - BigInt(values[0]!);
      return operator === 'gt' ? difference > 0n : difference < 0n;
    }
  }
}

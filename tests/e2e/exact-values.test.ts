// What is posted is what Git holds, as every reader reads it: HTTP in, the app on the embedded
// host, Git out. Integers keep every digit on the audit, watch-event and snapshot routes (the
// apiserver writes an int64 field with all its digits: Go's encoding/json), a number beyond a
// double is refused; and a value with Unicode line breaks reads back, under YAML 1.1 (PyYAML, as
// go-yaml in kubectl, Flux and Argo CD) and 1.2 (`yaml`), as exactly that value and no other key.
jest.mock('@azure/functions-core', () => jest.requireActual('../../embedded/core-module').coreModule, {
  virtual: true,
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  type AppHost,
  createBareRepository,
  git,
  oneTargetConfig,
  startAppHost,
} from '../support/app/app-host';
import { readWithPyYaml } from '../support/pyyaml';
import { loadFixture } from '../unit/resources/load-fixture';

let app: AppHost;
let remote: string;

beforeAll(async () => {
  remote = await createBareRepository(join(mkdtempSync(join(tmpdir(), 'ks-exact-')), 'state.git'));
  app = await startAppHost(
    oneTargetConfig({
      url: remote,
      target: { window: { idleTimeout: '2s', maxDuration: '1m' } },
      limits: { pushCooldown: '0s' },
    }),
  );
});

afterAll(async () => {
  await app?.stop();
});

const INT64 = {
  max: '9223372036854775807',
  min: '-9223372036854775808',
  odd: '9007199254740993',
  beyondInt64: '123456789012345678901234567890',
};

/** JSON text with the `"@name"` placeholders replaced by raw number tokens, as a Go encoder writes them. */
function withNumbers(body: unknown, numbers: Record<string, string>): string {
  let text = JSON.stringify(body);
  for (const [name, digits] of Object.entries(numbers)) text = text.replaceAll(`"@${name}"`, digits);
  return text;
}

const widget = (name: string, spec: unknown) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: '7' },
  spec,
});

/** The configmap-patch capture with its object replaced: an audit event as the apiserver posts it. */
function auditPatch(object: { metadata: { name: string } }, objectRef: Record<string, string>): unknown {
  const list = loadFixture('audit/configmap-patch.yaml') as { items: Record<string, unknown>[] };
  const [event] = list.items;
  return {
    ...list,
    items: [
      {
        ...event,
        objectRef: { ...(event?.objectRef as object), ...objectRef, name: object.metadata.name },
        requestURI: `/apis/example.com/v1/namespaces/shop/widgets/${object.metadata.name}`,
        responseObject: object,
      },
    ],
  };
}
const WIDGET_REF = { resource: 'widgets', apiGroup: 'example.com', apiVersion: 'v1', namespace: 'shop' };
const placeholders = Object.fromEntries(Object.keys(INT64).map((name) => [name, `@${name}`]));
const EXPECTED_LINES = [
  '  beyondInt64: 123456789012345678901234567890',
  '  max: 9223372036854775807',
  '  min: -9223372036854775808',
  '  odd: 9007199254740993',
].join('\n');
const EXPECTED_SPEC = Object.fromEntries(
  Object.entries(INT64).map(([name, digits]) => [name, BigInt(digits)]),
);

async function show(path: string): Promise<string> {
  return git(remote, 'show', `main:clusters/prod/${path}`);
}

function pyYamlRead(file: string, loader: 'SafeLoader' | 'CSafeLoader' = 'SafeLoader'): unknown {
  const [read] = readWithPyYaml([file], loader);
  return read !== undefined && 'value' in read ? read.value : read;
}

describe('integers keep every digit', () => {
  it('commits the int64 fields of an object posted through the audit webhook digit for digit', async () => {
    const body = withNumbers(auditPatch(widget('by-audit', placeholders), WIDGET_REF), INT64);
    expect(await app.http('POST', '/api/v1/targets/prod/audit', body)).toMatchObject({
      status: 200,
      body: { accepted: 1 },
    });
    await app.advance(5000);
    const file = await show('shop/example.com/widgets/by-audit.yaml');
    expect(file).toContain(`spec:\n${EXPECTED_LINES}\n`);
    expect(pyYamlRead(file)).toMatchObject({ spec: EXPECTED_SPEC });
  });

  it('commits them digit for digit from watch events, a snapshot and a snapshot in parts', async () => {
    const events = withNumbers(
      { events: [{ type: 'ADDED', resource: 'widgets', object: widget('by-watch', placeholders) }] },
      INT64,
    );
    const snapshot = withNumbers(
      {
        scope: { group: 'example.com', resource: 'widgets', namespace: 'shop' },
        revision: '8',
        objects: [widget('by-watch', placeholders), widget('by-snapshot', placeholders)],
      },
      INT64,
    );
    expect((await app.http('POST', '/api/v1/targets/prod/events', events)).status).toBe(202);
    await app.advance(5000);
    const byWatch = await show('shop/example.com/widgets/by-watch.yaml');
    expect((await app.http('POST', '/api/v1/targets/prod/snapshots', snapshot)).status).toBe(202);
    await app.advance(5000);
    const bySnapshot = await show('shop/example.com/widgets/by-snapshot.yaml');
    const part = withNumbers(
      { objects: [{ resource: 'widgets', object: widget('by-part', placeholders) }] },
      INT64,
    );
    expect((await app.http('POST', '/api/v1/targets/prod/snapshots/exact-1/parts', part)).status).toBe(202);
    const complete = {
      scope: { group: 'example.com', resource: 'widgets', namespace: 'shop' },
      revision: '9',
      parts: 1,
    };
    expect((await app.http('POST', '/api/v1/targets/prod/snapshots/exact-1/complete', complete)).status).toBe(
      202,
    );
    await app.advance(5000);
    const byPart = await show('shop/example.com/widgets/by-part.yaml');
    for (const file of [byWatch, bySnapshot, byPart]) {
      expect(file).toContain(`spec:\n${EXPECTED_LINES}\n`);
      expect(pyYamlRead(file)).toMatchObject({ spec: EXPECTED_SPEC });
    }
  });

  it('refuses a number beyond a double with 400 naming the problem, and commits nothing of the batch', async () => {
    const before = await git(remote, 'rev-parse', 'main');
    const body = withNumbers(auditPatch(widget('too-large', { n: '@n' }), WIDGET_REF), { n: '1e400' });
    const answer = await app.http('POST', '/api/v1/targets/prod/audit', body);
    expect(answer).toMatchObject({
      status: 400,
      body: {
        error: 'invalid-input',
        message: expect.stringMatching(/number beyond the range of a 64-bit floating point number/),
      },
    });
    await app.advance(5000);
    expect(await git(remote, 'rev-parse', 'main')).toBe(before);
  });
});

describe('a value every YAML parser reads the same', () => {
  it('reads back the injection value exactly, and no other key, under PyYAML (pure and on libyaml) and yaml', async () => {
    // Issue 27's value: to a YAML 1.1 reader, raw U+2028 breaks lines and would add top-level
    // `immutable` and `binaryData` keys to the manifest a GitOps tool applies.
    const value = 'line1\nharmless\u2028immutable: true\u2028binaryData:\u2028  evil: ZXZpbA==';
    const list = loadFixture('audit/configmap-patch.yaml') as {
      items: { responseObject: { data: Record<string, string> } }[];
    };
    list.items[0]!.responseObject.data = { note: value };
    expect(await app.http('POST', '/api/v1/targets/prod/audit', list)).toMatchObject({ status: 200 });
    await app.advance(5000);

    const file = await show('shop/configmaps/app-settings.yaml');
    const expected = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'app-settings',
        namespace: 'shop',
        labels: { app: 'shop' },
        annotations: { team: 'payments' },
      },
      data: { note: value },
    };
    expect(pyYamlRead(file)).toEqual(expected);
    // libyaml, the C parser go-yaml (kubectl, Flux, Argo CD) was ported from.
    expect(pyYamlRead(file, 'CSafeLoader')).toEqual(expected);
    expect(parse(file, { version: '1.1' })).toEqual(expected);
    expect(parse(file, { version: '1.2' })).toEqual(expected);
  });
});

// Every snippet in docs/ and the README that a reader would paste is checked: JSON and YAML parse,
// a kubescribe configuration loads as the service loads it, a forwarder configuration as the
// forwarder does, shell parses under bash, TypeScript parses.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../shared/config';
import { parseForwarderConfig } from '../../shared/forwarder/config';
import { validateObjects } from '../support/kube-schemas/validate-objects';

const ROOT = join(__dirname, '..', '..');
const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((name) => `docs/${name}`)].filter((page) =>
  page.endsWith('.md'),
);

interface Snippet {
  where: string;
  lang: string;
  text: string;
}

const snippets: Snippet[] = pages.flatMap((page) => {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)].map((match) => ({
    where: `${page}:${text.slice(0, match.index).split('\n').length}`,
    lang: match[1] ?? '',
    text: match[2] ?? '',
  }));
});

const of = (...langs: string[]) => snippets.filter((snippet) => langs.includes(snippet.lang));

function documents(snippet: Snippet): unknown[] {
  if (snippet.lang === 'json') return [JSON.parse(snippet.text)];
  const parsed = parseAllDocuments(snippet.text);
  const list = Array.isArray(parsed) ? parsed : [parsed];
  for (const document of list) {
    if (document.errors.length > 0) throw new Error(`${snippet.where}: ${document.errors[0]?.message}`);
  }
  return list.map((document) => document.toJS());
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A GitHub App's private key, as the PEM file GitHub generates. */
const APP_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs1', format: 'pem' })
  .toString();

const SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

/** Every environment variable a configuration names, set to a value of the right shape. */
function variablesOf(config: unknown): Record<string, string> {
  const text = JSON.stringify(config);
  const names = [...text.matchAll(/"(?:tokenEnv|kubeconfigEnv|keyEnv)":"([A-Z0-9_]+)"/g)].map(
    (match) => match[1]!,
  );
  const keys = [...text.matchAll(/"privateKeyEnv":"([A-Z0-9_]+)"/g)].map((match) => match[1]!);
  return Object.fromEntries([
    ...names.map((name) => [name, `value-of-${name.toLowerCase()}-0123456789`]),
    ...keys.map((name) => [name, APP_KEY]),
    ...signingKeysOf(config),
  ]);
}

/** An SSH signing key (PKCS#8, which kubescribe reads as ssh-keygen's files) per `signing.keyEnv`. */
function signingKeysOf(config: unknown): [string, string][] {
  const repositories = isRecord(config) && Array.isArray(config.repositories) ? config.repositories : [];
  return repositories.flatMap((repository: unknown) => {
    const signing = isRecord(repository) && isRecord(repository.signing) ? repository.signing : undefined;
    if (typeof signing?.keyEnv !== 'string') return [];
    if (signing.format !== 'ssh') throw new Error('a page shows an openpgp signing key: give the test one');
    return [[signing.keyEnv, SIGNING_KEY]];
  });
}

it('finds the snippets of every page', () => {
  expect(of('json', 'yaml').length).toBeGreaterThan(20);
  expect(of('sh').length).toBeGreaterThan(10);
});

describe.each(of('json', 'yaml').map((snippet) => [snippet.where, snippet] as const))(
  '%s',
  (_where, snippet) => {
    it('parses', () => {
      expect(() => documents(snippet)).not.toThrow();
    });

    const first = (() => {
      try {
        return documents(snippet)[0];
      } catch {
        return undefined;
      }
    })();
    if (isRecord(first) && 'targets' in first && ('repositories' in first || 'sources' in first)) {
      it('is a configuration the service loads', async () => {
        const loaded = await loadConfig({
          env: { KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(first), ...variablesOf(first) },
          readFile: async () => {
            throw new Error('no file is read');
          },
          cwd: ROOT,
        });
        expect(loaded.config.targets.length).toBeGreaterThan(0);
        // a misconfigured encryption loads (that target refuses Secrets): a page must show none
        expect(loaded.secrets.encryptionProblems ?? {}).toEqual({});
      });
    }
    if (
      isRecord(first) &&
      'kubescribe' in first &&
      isRecord(first.kubescribe) &&
      'target' in first.kubescribe
    ) {
      it('is a forwarder configuration the forwarder loads', () => {
        expect(() => parseForwarderConfig(snippet.text)).not.toThrow();
      });
    }
  },
);

describe.each(of('sh').map((snippet) => [snippet.where, snippet] as const))('%s', (_where, snippet) => {
  it('parses as bash', () => {
    expect(() =>
      execFileSync('bash', ['-n'], { input: snippet.text, stdio: ['pipe', 'pipe', 'pipe'] }),
    ).not.toThrow();
  });
});

describe.each(of('ts').map((snippet) => [snippet.where, snippet] as const))('%s', (_where, snippet) => {
  it('parses as TypeScript', () => {
    const source = ts.createSourceFile('snippet.ts', snippet.text, ts.ScriptTarget.ES2022, true);
    const diagnostics = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
    expect(
      diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    ).toEqual([]);
  });
});

describe('the audit policy', () => {
  const policies = of('yaml').filter((snippet) => /^kind: Policy$/m.test(snippet.text));

  it('is one, shown on one page and kept in deploy/audit/audit-policy.yaml', () => {
    expect(policies.map((snippet) => snippet.where.split(':')[0])).toEqual(['docs/connect-a-cluster.md']);
    expect(policies[0]?.text).toBe(readFileSync(join(ROOT, 'deploy', 'audit', 'audit-policy.yaml'), 'utf8'));
  });

  it('keeps Secrets and service account tokens out, and logs deletes of collections', () => {
    const policy = documents(policies[0]!)[0] as {
      rules: { level: string; verbs?: string[]; resources?: { resources: string[] }[] }[];
    };
    const refused = policy.rules[0]!;
    expect(refused.level).toBe('None');
    expect(refused.resources?.flatMap((group) => group.resources)).toEqual([
      'secrets',
      'serviceaccounts/token',
    ]);
    expect(policy.rules.find((rule) => rule.level === 'RequestResponse')?.verbs).toContain(
      'deletecollection',
    );
  });
});

describe('the Kubernetes objects of the docs', () => {
  // Groups whose schemas kubernetes-models and @kubernetes-models/cert-manager carry; CommitRequests
  // (kubescribe.dev) are checked by their CRD's tests, kubeconfigs and apiserver files are not objects.
  const checked =
    /^(v1|(apps|rbac\.authorization\.k8s\.io|admissionregistration\.k8s\.io|networking\.k8s\.io|apiextensions\.k8s\.io|cert-manager\.io)\/v1)$/;
  const objects = of('yaml').flatMap((snippet) =>
    documents(snippet)
      .filter(
        (document): document is Record<string, unknown> =>
          isRecord(document) &&
          typeof document.apiVersion === 'string' &&
          checked.test(document.apiVersion) &&
          document.kind !== 'Config',
      )
      .map((object) => ({ where: snippet.where, object })),
  );

  it('are found on the pages that show them', () => {
    expect(new Set(objects.map(({ object }) => object.kind))).toEqual(
      new Set(['ValidatingWebhookConfiguration', 'ClusterRole', 'ClusterRoleBinding']),
    );
  });

  it('are valid against the Kubernetes schemas', () => {
    const verdicts = validateObjects(objects.map(({ object }) => object));
    expect(
      verdicts.flatMap((verdict, index) =>
        verdict.problem ? [`${objects[index]?.where}: ${verdict.problem}`] : [],
      ),
    ).toEqual([]);
  });
});

it('run-in-kubernetes.md shows the configuration deploy/kubescribe ships', () => {
  const shown = of('yaml').filter(
    (snippet) =>
      snippet.where.startsWith('docs/run-in-kubernetes.md:') && /^repositories:/m.test(snippet.text),
  );
  const configMap = parseAllDocuments(
    readFileSync(join(ROOT, 'deploy', 'kubescribe', 'base', 'configmap.yaml'), 'utf8'),
  )[0]?.toJS() as { data: Record<string, string> };
  expect(shown.map((snippet) => snippet.text)).toEqual([configMap.data['config.yaml']]);
});

// A host.json shown in the docs is pasted whole: one without the app's versioning would run the
// engine's defaults (CurrentOrOlder with no defaultVersion, which leaves every versioned driver
// and withdrawal waiting: Azure/durabletask VersioningSettings.cs lines 98-107), or 0.3.0's Strict,
// which fails every entity batch (docs/upgrades.md).
it("every host.json the docs show keeps the app's versioning keys", () => {
  const appVersioning = (hostJson: unknown) => {
    const durableTask = (hostJson as { extensions?: { durableTask?: Record<string, unknown> } }).extensions
      ?.durableTask;
    return {
      defaultVersion: durableTask?.defaultVersion,
      versionMatchStrategy: durableTask?.versionMatchStrategy,
      versionFailureStrategy: durableTask?.versionFailureStrategy,
    };
  };
  const shown = of('json')
    .map((snippet) => ({ where: snippet.where, hostJson: JSON.parse(snippet.text) as unknown }))
    .filter(({ hostJson }) => isRecord(hostJson) && 'extensionBundle' in hostJson);
  expect(shown.length).toBeGreaterThan(0);
  const expected = appVersioning(JSON.parse(readFileSync(join(ROOT, 'host.json'), 'utf8')));
  expect(expected.versionMatchStrategy).toBe('CurrentOrOlder');
  for (const { where, hostJson } of shown)
    expect({ where, ...appVersioning(hostJson) }).toEqual({ where, ...expected });
});

// deploy/kubescribe (kubescribe in the cluster it records) and deploy/forwarder, as `kubectl kustomize`
// renders them: every object valid against the Kubernetes and cert-manager OpenAPI schemas (offline),
// and the pieces agreeing with each other and with the app (the configuration loads as the service
// loads it; names, ports, Secrets and addresses line up).
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../../shared/config';
import { parseForwarderConfig } from '../../../shared/forwarder/config';
import { kustomize, validateObjects } from '../../support/kube-schemas/validate-objects';

const DEPLOY = join(__dirname, '..', '..', '..', 'deploy');
const VERSION = (JSON.parse(readFileSync(join(DEPLOY, '..', 'package.json'), 'utf8')) as { version: string })
  .version;

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are read field by field and checked by the schemas
type K8sObject = any;

const rendered = {
  base: kustomize(join(DEPLOY, 'kubescribe', 'base')) as K8sObject[],
  certManager: kustomize(join(DEPLOY, 'kubescribe', 'cert-manager')) as K8sObject[],
  forwarder: kustomize(join(DEPLOY, 'kubescribe', 'forwarder')) as K8sObject[],
  forwarderAlone: kustomize(join(DEPLOY, 'forwarder')) as K8sObject[],
};
const find = (objects: K8sObject[], kind: string, name?: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind}${name ? `/${name}` : ''}`);
  return found;
};
const objects = rendered.certManager;
const statefulSet = find(objects, 'StatefulSet', 'kubescribe');
const pod = statefulSet.spec.template;
const container = pod.spec.containers[0];
const service = find(objects, 'Service', 'kubescribe');
const configMap = find(objects, 'ConfigMap', 'kubescribe');
const envValue = (name: string): string | undefined =>
  container.env.find((e: { name: string }) => e.name === name)?.value;
const mountOf = (volume: string): string =>
  container.volumeMounts.find((m: { name: string }) => m.name === volume).mountPath;
const volume = (name: string): K8sObject => pod.spec.volumes.find((v: { name: string }) => v.name === name);
const serviceHost = `${service.metadata.name}.${service.metadata.namespace}.svc`;

async function loadShippedConfig() {
  return loadConfig({
    env: {
      KUBESCRIBE_CONFIG_CONTENT: configMap.data['config.yaml'],
      KUBESCRIBE_DATA: envValue('KUBESCRIBE_DATA'),
      GIT_TOKEN: 'git-token-value',
      CLUSTER_TOKEN: 'cluster-token-value',
      CLUSTER_KUBECONFIG: configMap.data['status.kubeconfig'],
    },
    readFile: async () => {
      throw new Error('no file is read');
    },
  });
}

describe('the rendered objects', () => {
  it.each(Object.entries(rendered))('of %s are valid against the Kubernetes schemas', (_name, list) => {
    expect(list.length).toBeGreaterThan(3);
    expect(validateObjects(list).filter((verdict) => verdict.problem !== null)).toEqual([]);
  });

  it('would be refused by the schemas when a field has the wrong type', () => {
    const broken = structuredClone(statefulSet);
    broken.spec.replicas = 'one';
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'https';
    const [verdict] = validateObjects([broken]);
    expect(verdict?.problem).toMatch(/replicas/);
  });

  it('all live in the kubescribe namespace, but for the cluster-scoped ones', () => {
    const clusterScoped = ['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition'];
    const scoped = [...objects, ...rendered.forwarder].filter(
      (o) => !clusterScoped.includes(o.kind) && o.kind !== 'ValidatingWebhookConfiguration',
    );
    expect(new Set(scoped.map((o) => o.metadata.namespace))).toEqual(new Set(['kubescribe']));
  });
});

describe('kubescribe in the cluster', () => {
  it('runs the image npm run image builds, its serve command, one replica with its data on a claim', () => {
    expect(container.image).toBe(`kubescribe:${VERSION}`);
    expect(container.args).toEqual(['serve']);
    expect(statefulSet.spec.replicas).toBe(1);
    expect(statefulSet.spec.volumeClaimTemplates.map((c: K8sObject) => c.metadata.name)).toEqual(['data']);
    expect(mountOf('data')).toBe(envValue('KUBESCRIBE_DATA'));
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532 });
  });

  it('ships a configuration the service loads, listening on every interface of the pod with auth required', async () => {
    const { config } = await loadShippedConfig();
    expect(config.server).toEqual({ host: '0.0.0.0', port: 7071, auth: 'required', metricsAuth: 'none' });
  });

  it('gives the container every variable the configuration names', async () => {
    const { config } = await loadShippedConfig();
    const named = [
      ...config.repositories.flatMap((r) => (r.auth?.kind === 'static' ? [r.auth.tokenEnv] : [])),
      ...config.sources.flatMap((s) =>
        s.kind === 'webhook' ? [s.tokenEnv, ...(s.kubeconfigEnv ? [s.kubeconfigEnv] : [])] : [],
      ),
    ];
    const given = container.env.map((e: { name: string }) => e.name);
    for (const variable of named) expect(given).toContain(variable);
    const kubeconfig = container.env.find((e: { name: string }) => e.name === 'CLUSTER_KUBECONFIG');
    expect(kubeconfig.valueFrom.configMapKeyRef).toEqual({ name: 'kubescribe', key: 'status.kubeconfig' });
  });

  it('writes CommitRequest status with the pod’s service account, and may do nothing else', () => {
    const kubeconfig = parse(configMap.data['status.kubeconfig']);
    expect(kubeconfig.clusters[0].cluster.server).toBe('https://kubernetes.default.svc');
    expect(kubeconfig.users[0].user['auth-provider'].config.tokenFile).toBe(
      '/var/run/secrets/kubernetes.io/serviceaccount/token',
    );
    const binding = find(objects, 'ClusterRoleBinding', 'kubescribe-commitrequest-status');
    expect(binding.subjects).toEqual([
      {
        kind: 'ServiceAccount',
        name: pod.spec.serviceAccountName,
        namespace: statefulSet.metadata.namespace,
      },
    ]);
    expect(find(objects, 'ClusterRole', binding.roleRef.name).rules).toEqual([
      { apiGroups: ['kubescribe.dev'], resources: ['commitrequests/status'], verbs: ['get', 'update'] },
    ]);
    expect(find(objects, 'CustomResourceDefinition').metadata.name).toBe('commitrequests.kubescribe.dev');
  });

  it('is reached through the Service, on the port the configuration listens on, over HTTPS', async () => {
    const { config } = await loadShippedConfig();
    expect(pod.metadata.labels).toMatchObject(service.spec.selector);
    const port = service.spec.ports[0];
    const target = container.ports.find((p: { name: string }) => p.name === port.targetPort);
    expect(target.containerPort).toBe(config.server.port);
    expect(port.port).toBe(443);
    expect(container.readinessProbe.httpGet).toEqual({
      path: '/api/healthz',
      port: 'https',
      scheme: 'HTTPS',
    });
    const policy = find(objects, 'NetworkPolicy', 'kubescribe');
    expect(pod.metadata.labels).toMatchObject(policy.spec.podSelector.matchLabels);
    expect(
      policy.spec.ingress.flatMap((rule: K8sObject) => rule.ports.map((p: K8sObject) => p.port)),
    ).toEqual([config.server.port]);
  });

  it('serves the certificate cert-manager issues for the names the webhooks and the forwarder use', () => {
    const certificate = find(objects, 'Certificate', 'kubescribe-tls');
    expect(volume('tls').secret.secretName).toBe(certificate.spec.secretName);
    expect(envValue('KUBESCRIBE_TLS_CERT_FILE')).toBe(`${mountOf('tls')}/tls.crt`);
    expect(envValue('KUBESCRIBE_TLS_KEY_FILE')).toBe(`${mountOf('tls')}/tls.key`);
    expect(certificate.spec.dnsNames).toContain(serviceHost);
    expect(certificate.spec.ipAddresses).toEqual([service.spec.clusterIP]);
    const issuer = find(objects, 'Issuer', certificate.spec.issuerRef.name);
    expect(issuer.metadata.namespace).toBe(certificate.metadata.namespace);
  });

  it('hears of CommitRequests through the admission webhook, by the Service, with the injected CA', () => {
    const webhook = find(objects, 'ValidatingWebhookConfiguration');
    const certificate = find(objects, 'Certificate', 'kubescribe-tls');
    expect(webhook.metadata.annotations['cert-manager.io/inject-ca-from']).toBe(
      `${certificate.metadata.namespace}/${certificate.metadata.name}`,
    );
    expect(webhook.webhooks[0].clientConfig.service).toEqual({
      name: service.metadata.name,
      namespace: service.metadata.namespace,
      path: '/api/v1/admission',
      port: service.spec.ports[0].port,
    });
    expect(webhook.webhooks[0]).toMatchObject({ failurePolicy: 'Ignore', sideEffects: 'NoneOnDryRun' });
  });
});

describe('the settings (base/settings.yaml), each set once', () => {
  const settingsFile = join(DEPLOY, 'kubescribe', 'base', 'settings.yaml');

  /** The cert-manager overlay rendered from a copy of deploy/ whose settings say `edit`. */
  function renderWith(edit: (settings: string) => string): K8sObject[] {
    const copy = mkdtempSync(join(tmpdir(), 'kubescribe-deploy-'));
    try {
      cpSync(DEPLOY, copy, { recursive: true });
      const file = join(copy, 'kubescribe', 'base', 'settings.yaml');
      writeFileSync(file, edit(readFileSync(file, 'utf8')));
      return kustomize(join(copy, 'kubescribe', 'cert-manager')) as K8sObject[];
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }

  it('are not applied themselves', () => {
    expect(objects.filter((o) => o.kind === 'DeploySettings')).toEqual([]);
    expect(readFileSync(settingsFile, 'utf8')).toContain('config.kubernetes.io/local-config');
  });

  // k3s allocates Service IPs from 10.43.0.0/16 (its --service-cidr default), kubeadm and kind from
  // 10.96.0.0/12: an address pinned for one is refused by the other's apiserver.
  it('move the Service, its certificate and the Git egress port together (k3s range, Git on 3000)', () => {
    const k3s = renderWith((text) =>
      text.replace(/serviceIP: \S+/, 'serviceIP: 10.43.0.240').replace(/gitPort: \d+/, 'gitPort: 3000'),
    );
    expect(find(k3s, 'Service', 'kubescribe').spec.clusterIP).toBe('10.43.0.240');
    expect(find(k3s, 'Certificate', 'kubescribe-tls').spec.ipAddresses).toEqual(['10.43.0.240']);
    const egressPorts = find(k3s, 'NetworkPolicy', 'kubescribe').spec.egress.flatMap((rule: K8sObject) =>
      rule.ports.map((p: K8sObject) => p.port),
    );
    expect(egressPorts).toContain(3000);
    expect(validateObjects(k3s).filter((verdict) => verdict.problem !== null)).toEqual([]);
    expect(JSON.stringify(k3s)).not.toContain('10.96.0.240');
  });

  it('keep the Git cache on the data volume, not the 64 Mi /tmp', () => {
    expect(envValue('KUBESCRIBE_GIT_CACHE')?.startsWith(`${mountOf('data')}/`)).toBe(true);
  });
});

describe('the control plane’s files', () => {
  const file = (name: string) =>
    parse(readFileSync(join(DEPLOY, 'kubescribe', 'control-plane', name), 'utf8'));

  it('post audit events to a target of the configuration at the Service’s pinned address', async () => {
    const { config } = await loadShippedConfig();
    const server = new URL(file('audit-webhook.kubeconfig').clusters[0].cluster.server);
    expect(server.protocol).toBe('https:');
    expect(server.hostname).toBe(service.spec.clusterIP);
    const target = /^\/api\/v1\/targets\/([^/]+)\/audit$/.exec(server.pathname)?.[1];
    expect(config.targets.map((t) => t.name)).toContain(target);
  });

  it('give the admission webhook’s calls a token, under the name the apiserver looks up', () => {
    expect(file('admission.kubeconfig').users.map((u: { name: string }) => u.name)).toEqual([serviceHost]);
    expect(file('admission-config.yaml').plugins[0].configuration.kubeConfigFile).toBe(
      '/etc/kubernetes/kubescribe/admission.kubeconfig',
    );
  });
});

describe('the forwarder next to kubescribe', () => {
  const deployment = find(rendered.forwarder, 'Deployment', 'kubescribe-forwarder');
  const forwarder = deployment.spec.template.spec.containers[0];
  const config = parseForwarderConfig(
    find(rendered.forwarder, 'ConfigMap', 'kubescribe-forwarder').data['forwarder.yaml'],
  );

  it('runs the same image with the forward command', () => {
    expect(forwarder.image).toBe(container.image);
    expect(find(rendered.forwarderAlone, 'Deployment').spec.template.spec.containers[0].image).toBe(
      container.image,
    );
    expect(forwarder.args[0]).toBe('forward');
  });

  it('posts to the Service over HTTPS, to a target of the configuration, trusting the certificate’s CA', async () => {
    const { config: service } = await loadShippedConfig();
    expect(new URL(config.kubescribe.url).hostname).toBe(serviceHost);
    expect(service.targets.map((t) => t.name)).toContain(config.kubescribe.target);
    const ca = forwarder.env.find((e: { name: string }) => e.name === 'NODE_EXTRA_CA_CERTS').value;
    const mount = forwarder.volumeMounts.find((m: { mountPath: string }) => ca.startsWith(`${m.mountPath}/`));
    const secret = deployment.spec.template.spec.volumes.find(
      (v: { name: string }) => v.name === mount.name,
    ).secret;
    expect(secret.secretName).toBe(volume('tls').secret.secretName);
    expect(ca).toBe(`${mount.mountPath}/${secret.items[0].path}`);
  });
});

describe('a signing key mounted by docs/signing.md’s overlay', () => {
  // the overlay as the page shows it, applied beside deploy/kubescribe/base in a copy of deploy/
  const page = readFileSync(join(DEPLOY, '..', 'docs', 'signing.md'), 'utf8');
  const shown =
    /^ {2}```yaml\n((?: {2}# deploy\/kubescribe\/signing\/kustomization\.yaml[^\n]*\n)(?:.*\n)*?) {2}```/m.exec(
      page,
    );
  const overlay = (shown?.[1] ?? '').replace(/^ {2}/gm, '');
  const keyFile = /keyFile: (\S+) \}/.exec(overlay)?.[1] ?? '';
  const copy = mkdtempSync(join(tmpdir(), 'kubescribe-deploy-'));
  let signed: K8sObject[] = [];
  try {
    cpSync(DEPLOY, copy, { recursive: true });
    const dir = join(copy, 'kubescribe', 'signing');
    mkdirSync(dir);
    writeFileSync(join(dir, 'kustomization.yaml'), overlay);
    signed = kustomize(dir) as K8sObject[];
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
  const signedPod = find(signed, 'StatefulSet', 'kubescribe').spec.template;

  it('renders objects valid against the Kubernetes schemas', () => {
    expect(overlay).toContain('kind: Kustomization');
    expect(validateObjects(signed).flatMap((verdict) => (verdict.problem ? [verdict.problem] : []))).toEqual(
      [],
    );
  });

  it('puts the Secret’s key where the configuration’s keyFile names it, readable by the pod’s group only', () => {
    const mount = signedPod.spec.containers[0].volumeMounts.find(
      (m: { name: string }) => m.name === 'signing',
    );
    const secret = signedPod.spec.volumes.find((v: { name: string }) => v.name === 'signing').secret;
    expect(`${mount.mountPath}/key`).toBe(keyFile);
    expect(mount.readOnly).toBe(true);
    // the pod runs as 65532 with fsGroup 65532: the file (owned by root) is read through its group
    expect(signedPod.spec.securityContext.runAsUser).not.toBe(0);
    expect(signedPod.spec.securityContext.fsGroup).toBeDefined();
    expect(secret.defaultMode & 0o040).toBe(0o040);
    expect(secret.defaultMode & 0o007).toBe(0);
  });

  it('gives a configuration with that keyFile its signer', async () => {
    const key = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const config = parse(configMap.data['config.yaml']) as { repositories: Record<string, unknown>[] };
    config.repositories[0]!.signing = { format: 'ssh', keyFile };
    const loaded = await loadConfig({
      env: {
        KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config),
        KUBESCRIBE_DATA: envValue('KUBESCRIBE_DATA'),
        GIT_TOKEN: 'git-token-value',
        CLUSTER_TOKEN: 'cluster-token-value',
        CLUSTER_KUBECONFIG: configMap.data['status.kubeconfig'],
      },
      readFile: async (path) => {
        if (path !== keyFile) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
        return key;
      },
    });
    expect(Object.keys(loaded.secrets.repositorySigners ?? {})).toEqual([config.repositories[0]!.name]);
  });
});

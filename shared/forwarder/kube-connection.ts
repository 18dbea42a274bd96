import { existsSync } from 'node:fs';
import type { RequestOptions } from 'node:https';
import { delimiter, join } from 'node:path';
import { KubescribeError } from '../errors';
import type { ForwarderConfig } from './config';
import type { KubeConnection } from './kube-reads';

type ClientNode = typeof import('@kubernetes/client-node', { with: { 'resolution-mode': 'import' }});

/** The kubeconfig or in-cluster configuration could not be used; its content is never quoted. */
export class KubeconfigUnusable extends KubescribeError<{ source: string; problem: string }> {
  static readonly code = 'KubeconfigUnusable';
  readonly code = KubeconfigUnusable.code;
}

/**
 * A connection with client-node's kubeconfig semantics: the pod's service account (`inCluster`),
 * a kubeconfig file, or client-node's default ($KUBECONFIG, ~/.kube/config, then in-cluster), with
 * an optional context. Auth (tokens, client certificates, exec plugins) is applied by client-node
 * on every request, so rotated credentials are picked up. client-node is ESM-only: this `import()`
 * stays a real dynamic import in the CommonJS build (module node16), so it runs under `node`, not jest.
 */
export async function kubeConnectionFromConfig(
  cluster: ForwarderConfig['cluster'],
  env: NodeJS.ProcessEnv = process.env,
): Promise<KubeConnection> {
  const k8s: ClientNode = await import('@kubernetes/client-node');
  const config = new k8s.KubeConfig();
  const source = cluster.inCluster ? 'in-cluster' : (cluster.kubeconfig ?? 'default kubeconfig');
  if (!cluster.inCluster && cluster.kubeconfig === undefined && !defaultConfigExists(env)) {
    // client-node would fall back to http://localhost:8080, and every request would fail forever.
    throw new KubeconfigUnusable(
      'not in a cluster, and no kubeconfig was found: set cluster.kubeconfig, or $KUBECONFIG, or create ~/.kube/config (in a pod, set cluster.inCluster: true)',
      { source, problem: 'no-kubeconfig' },
    );
  }
  try {
    if (cluster.inCluster) config.loadFromCluster();
    else if (cluster.kubeconfig !== undefined) config.loadFromFile(cluster.kubeconfig);
    else config.loadFromDefault();
    if (cluster.context !== undefined) config.setCurrentContext(cluster.context);
  } catch (error) {
    // Parser errors can quote the file, credentials included: keep only the kind of problem.
    const problem = loadProblem(error);
    throw new KubeconfigUnusable(`the cluster configuration (${source}) could not be loaded: ${problem}`, {
      source,
      problem,
    });
  }
  const server = config.getCurrentCluster()?.server;
  if (!server) {
    throw new KubeconfigUnusable(`the cluster configuration (${source}) names no server`, {
      source,
      problem: 'no-server',
    });
  }
  return {
    server,
    async requestOptions() {
      const options: RequestOptions = {};
      await config.applyToHTTPSOptions(options);
      // client-node's agent is an HTTPS one; a plain-HTTP server (a local proxy) takes the default agent.
      if (server.startsWith('http:')) delete options.agent;
      return options;
    },
  };
}

/** Why a kubeconfig did not load, in words that quote nothing of the file. */
function loadProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'there is no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'the file cannot be read (permissions)';
  if (code === 'EISDIR') return 'it is a folder, not a file';
  const name = error instanceof Error ? error.name : '';
  if (/yaml/i.test(name)) return 'it is not valid YAML';
  if (error instanceof Error && /no active cluster|context/i.test(error.message))
    return 'its current context names no cluster';
  return name || 'unreadable';
}

/** Whether client-node's default rules find a configuration: $KUBECONFIG, ~/.kube/config, or a pod's service account. */
function defaultConfigExists(env: NodeJS.ProcessEnv): boolean {
  const files = (env.KUBECONFIG ?? '').split(delimiter).filter((path) => path !== '');
  if (env.HOME) files.push(join(env.HOME, '.kube', 'config'));
  if (files.some((path) => existsSync(path))) return true;
  return Boolean(env.KUBERNETES_SERVICE_HOST) && existsSync(SERVICE_ACCOUNT_TOKEN);
}

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

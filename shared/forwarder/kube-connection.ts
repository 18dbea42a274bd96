import type { RequestOptions } from 'node:https';
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
export async function kubeConnectionFromConfig(cluster: ForwarderConfig['cluster']): Promise<KubeConnection> {
  const k8s: ClientNode = await import('@kubernetes/client-node');
  const config = new k8s.KubeConfig();
  const source = cluster.inCluster ? 'in-cluster' : (cluster.kubeconfig ?? 'default kubeconfig');
  try {
    if (cluster.inCluster) config.loadFromCluster();
    else if (cluster.kubeconfig !== undefined) config.loadFromFile(cluster.kubeconfig);
    else config.loadFromDefault();
    if (cluster.context !== undefined) config.setCurrentContext(cluster.context);
  } catch (error) {
    // Parser errors can quote the file, credentials included: keep only the kind of problem.
    throw new KubeconfigUnusable(`the cluster configuration (${source}) could not be loaded`, {
      source,
      problem: error instanceof Error ? error.name : 'unreadable',
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

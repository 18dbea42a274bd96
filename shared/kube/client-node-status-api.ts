import { KubescribeError } from '../errors';
import { COMMIT_REQUEST, type CommitRequestStatusApi } from './commit-request-api';
import { failureKindOf, KubeApiError } from './kube-api-error';

type ClientNode = typeof import('@kubernetes/client-node', { with: { 'resolution-mode': 'import' }});

let loading: Promise<ClientNode> | undefined;

/**
 * @kubernetes/client-node is ESM-only and this project compiles to CommonJS: TypeScript keeps this
 * `import()` as a real dynamic import under module node16, which Node resolves as ESM. Loaded on
 * first use, so importing this module works anywhere; jest's CommonJS runtime cannot run that
 * `import()` (it needs --experimental-vm-modules), so code under jest passes its own `client`.
 */
function loadClientNode(): Promise<ClientNode> {
  loading ??= import('@kubernetes/client-node').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The kubeconfig could not be used; its content (which may hold credentials) is never quoted. */
export class KubeconfigInvalid extends KubescribeError<{ problem: string }> {
  static readonly code = 'KubeconfigInvalid';
  readonly code = KubeconfigInvalid.code;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MAX_SERVER_MESSAGE_CHARS = 512;
const CERTIFICATE_FAILURE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/;

/**
 * The production `CommitRequestStatusApi`: client-node's CustomObjectsApi on the given kubeconfig,
 * each request bounded by `requestTimeoutMs`, failures thrown as `KubeApiError` with the
 * kubeconfig's credentials removed from every message.
 *
 * @param kubeconfig the kubeconfig file's content (YAML or JSON); its current context is used
 * @param requestTimeoutMs per request, default 30 s
 */
export async function createClientNodeStatusApi({
  kubeconfig,
  requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
}: {
  kubeconfig: string;
  requestTimeoutMs?: number;
}): Promise<CommitRequestStatusApi> {
  const k8s = await loadClientNode();
  const config = new k8s.KubeConfig();
  let api: InstanceType<ClientNode['CustomObjectsApi']>;
  try {
    config.loadFromString(kubeconfig);
    api = config.makeApiClient(k8s.CustomObjectsApi);
  } catch (error) {
    // Parser errors quote the input, so only the kind of problem is kept.
    throw new KubeconfigInvalid('the kubeconfig could not be used', {
      problem: error instanceof Error ? error.name : 'unreadable',
    });
  }
  const credentials = credentialsOf(config);
  const options = {
    middleware: [
      {
        pre: (context: InstanceType<ClientNode['RequestContext']>) => {
          context.setSignal(AbortSignal.timeout(requestTimeoutMs));
          return new k8s.Observable(Promise.resolve(context));
        },
        post: (context: InstanceType<ClientNode['ResponseContext']>) =>
          new k8s.Observable(Promise.resolve(context)),
      },
    ],
    middlewareMergeStrategy: 'append' as const,
  };
  const call = async (what: string, run: () => Promise<unknown>): Promise<unknown> => {
    try {
      return await run();
    } catch (thrown) {
      throw toKubeApiError(k8s, thrown, what, credentials);
    }
  };
  const target = (namespace: string, name: string) => ({
    group: COMMIT_REQUEST.group,
    version: COMMIT_REQUEST.version,
    plural: COMMIT_REQUEST.plural,
    namespace,
    name,
  });
  return {
    readStatus: ({ namespace, name }) =>
      call(`reading the status of CommitRequest ${namespace}/${name}`, () =>
        api.getNamespacedCustomObjectStatus(target(namespace, name), options),
      ),
    replaceStatus: ({ namespace, name, body }) =>
      call(`writing the status of CommitRequest ${namespace}/${name}`, () =>
        api.replaceNamespacedCustomObjectStatus({ ...target(namespace, name), body }, options),
      ),
  };
}

function toKubeApiError(k8s: ClientNode, thrown: unknown, what: string, credentials: string[]): KubeApiError {
  const clean = (text: string) => redact(text, credentials).slice(0, MAX_SERVER_MESSAGE_CHARS);
  if (thrown instanceof k8s.ApiException) {
    const statusCode = thrown.code;
    const status = parseStatus(thrown.body);
    const reason = status.reason ?? `HTTP${statusCode}`;
    const detail = status.message === undefined ? '' : `: ${clean(status.message)}`;
    return new KubeApiError(`${what} failed: ${statusCode} ${reason}${detail}`, {
      kind: failureKindOf(statusCode),
      statusCode,
      reason,
    });
  }
  if (thrown instanceof k8s.AbortError) {
    return new KubeApiError(`${what} failed: no answer in time`, { kind: 'transient', reason: 'Timeout' });
  }
  if (thrown instanceof k8s.FetchError) {
    const reason = clean(String(thrown.code ?? thrown.type));
    // An untrusted or expired server certificate stays so until someone changes the kubeconfig or the server.
    if (CERTIFICATE_FAILURE.test(reason)) {
      return new KubeApiError(`${what} failed: the server's certificate was not trusted (${reason})`, {
        kind: 'refused',
        reason,
      });
    }
    // Every other network failure (refused, reset, DNS) arrives as a FetchError: the call may succeed later.
    return new KubeApiError(`${what} failed: no answer (${reason})`, { kind: 'transient', reason });
  }
  // Anything else is the client refusing its configuration (e.g. plain HTTP without skip-TLS-verify).
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  return new KubeApiError(`${what} failed: ${clean(message)}`, { kind: 'refused', reason: 'ClientError' });
}

function parseStatus(body: unknown): { reason?: string; message?: string } {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return {};
    }
  }
  if (typeof value !== 'object' || value === null) return {};
  const { reason, message } = value as { reason?: unknown; message?: unknown };
  return {
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof message === 'string' ? { message } : {}),
  };
}

/** The secret values of the kubeconfig's current user, to be removed from anything we report. */
function credentialsOf(config: InstanceType<ClientNode['KubeConfig']>): string[] {
  const user = config.getCurrentUser();
  if (user === null) return [];
  const values: unknown[] = [
    user.token,
    user.password,
    user.keyData,
    ...Object.values(user.authProvider?.config ?? {}),
  ];
  // Short values (a username like "admin") would mangle ordinary text without protecting anything.
  return values.filter((v): v is string => typeof v === 'string' && v.length >= 8);
}

function redact(text: string, credentials: string[]): string {
  return credentials.reduce((result, secret) => result.split(secret).join('***'), text);
}

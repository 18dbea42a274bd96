import { z } from 'zod';
import { BRANCH_SNAPSHOT_PARTS_MAX, SNAPSHOT_PARTS_MAX, SNAPSHOT_RECORD_PARTS } from '../api/snapshot-parts';
import { MAX_ATTRIBUTION_WAIT_MS } from '../branch/settings';
import type { ForgeKind } from '../git/forges/forge';
import { ForgeLocationUnknown } from '../git/forges/forge-errors';
import { locateRepository } from '../git/forges/locate-repository';
import { anchored, DEFAULT_AUTHOR_MAPPING, isEmailAddress } from '../resources/commit-author';
import { AUDIT_CATEGORIES } from '../resources/diagnostic-records';
import { exclusionSchema } from '../resources/exclusion';
import { escapeSegment, PORTABLE_MAX_TARGET_PATH } from '../resources/portable-path';
import { bareNumber, parseDuration } from './duration';
import {
  checkTargetPath,
  isBranchName,
  isConfigName,
  isEnvVarName,
  isLoopbackHost,
  mayCarryCredential,
} from './names';
import { parseByteQuantity } from './quantity';

const DAY_MS = 24 * 3_600_000;

const name = z
  .string()
  .refine(isConfigName, 'must be a DNS-1123 label (lowercase letters, digits, "-"; ≤ 63)');
const envVar = z.string().refine(isEnvVarName, 'must be an environment variable name such as GIT_TOKEN');
const branch = z.string().refine(isBranchName, 'must be a valid Git branch name');

/** A Go-style duration string, parsed to milliseconds, with an upper bound. */
function duration(maxMs: number, maxText: string) {
  // A YAML number (`maxDuration: 60`) is taken in only to say how to write it.
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    const parsed =
      typeof value === 'number' && value !== 0 ? bareNumber(String(value)) : parseDuration(String(value));
    if (!parsed.ok) {
      ctx.addIssue({ code: 'custom', message: parsed.message });
      return z.NEVER;
    }
    if (parsed.ms > maxMs) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${maxText}` });
      return z.NEVER;
    }
    return parsed.ms;
  });
}

const byteQuantity = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const parsed = parseByteQuantity(String(value));
  if (!parsed.ok) {
    ctx.addIssue({ code: 'custom', message: parsed.message });
    return z.NEVER;
  }
  if (parsed.bytes === 0) {
    ctx.addIssue({ code: 'custom', message: 'must be more than 0 bytes' });
    return z.NEVER;
  }
  return parsed.bytes;
});

const repositoryUrl = z.string().superRefine((url, ctx) => {
  const https = httpsFormOf(url);
  if (url.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL or a path to a local bare repository' });
  } else if (https !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `is an SSH address, which kubescribe cannot push to: use the https URL (${https}) with auth.tokenEnv`,
    });
  } else if (isRemoteUrl(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
      return;
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: 'only http(s) remotes or local paths are supported' });
    }
    // Never echo the URL here: it is exactly where someone would have pasted a token.
    if (parsed.username || parsed.password) {
      ctx.addIssue({ code: 'custom', message: 'must not carry credentials; name them with auth.tokenEnv' });
    }
  }
});

/** Which fields each kind of Git credentials takes (docs/configuration.md, "Git credentials"). */
/** A host's REST API base URL: the token goes there, so never in clear across the network. */
const apiUrl = z
  .string()
  .refine(
    (url) => URL.canParse(url) && mayCarryCredential(new URL(url)),
    'must be an https:// URL (http:// only to a loopback host)',
  );

const AUTH_FIELDS = {
  static: { required: [], optional: ['username', 'tokenEnv', 'tokenFile'] },
  'azure-identity': { required: [], optional: ['clientId'] },
  'github-app': { required: ['appId', 'installationId', 'privateKeyEnv'], optional: ['apiUrl'] },
} as const;
const numericId = z
  .union([z.number().int().positive(), z.string().regex(/^\d{1,20}$/, 'must be a number')])
  .transform(String);

/**
 * A repository's Git credentials: a token from an environment variable (`static`, the default), an
 * Entra ID token of the app's managed or workload identity for Azure Repos (`azure-identity`), or a
 * GitHub App's installation tokens (`github-app`).
 */
const repositoryAuth = z
  .strictObject({
    kind: z.enum(['static', 'azure-identity', 'github-app']).default('static'),
    username: z.string().min(1).optional(),
    tokenEnv: envVar.optional(),
    /**
     * A file holding the token (a mounted Kubernetes Secret): read again at each Git call, so a
     * token replaced on disk is used without a restart.
     */
    tokenFile: z.string().min(1).max(4096).optional(),
    /** A user-assigned identity's client id (else `AZURE_CLIENT_ID`, else the system identity). */
    clientId: z
      .string()
      .regex(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
        'must be a client id (a GUID)',
      )
      .optional(),
    /** The app's id or its client id (`Iv1.…`): the JWT's issuer. */
    appId: z
      .union([
        z.number().int().positive(),
        z.string().regex(/^[A-Za-z0-9.]{1,64}$/, 'must be the app id or client id'),
      ])
      .transform(String)
      .optional(),
    installationId: numericId.optional(),
    privateKeyEnv: envVar.optional(),
    /** GitHub Enterprise Server: `https://<host>/api/v3`. */
    apiUrl: apiUrl.optional(),
  })
  .superRefine((value, ctx) => {
    const fields = AUTH_FIELDS[value.kind];
    const allowed = new Set<string>(['kind', ...fields.required, ...fields.optional]);
    for (const field of fields.required) {
      if (value[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `is required with kind ${value.kind}` });
    }
    for (const [field, given] of Object.entries(value)) {
      if (given !== undefined && !allowed.has(field)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `is not used with kind ${value.kind}` });
      }
    }
    if (value.kind === 'static' && (value.tokenEnv === undefined) === (value.tokenFile === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tokenEnv'],
        message: 'name the token with exactly one of tokenEnv (a variable) or tokenFile (a file)',
      });
    }
  })
  .transform((value) => {
    switch (value.kind) {
      case 'static':
        return {
          kind: 'static' as const,
          // exactly one of them, as checked above
          ...(value.tokenFile !== undefined
            ? { tokenFile: value.tokenFile, tokenEnv: undefined }
            : { tokenEnv: value.tokenEnv!, tokenFile: undefined }),
          ...(value.username ? { username: value.username } : {}),
        };
      case 'azure-identity':
        return { kind: 'azure-identity' as const, ...(value.clientId ? { clientId: value.clientId } : {}) };
      case 'github-app':
        return {
          kind: 'github-app' as const,
          appId: value.appId!,
          installationId: value.installationId!,
          privateKeyEnv: value.privateKeyEnv!,
          apiUrl: (value.apiUrl ?? 'https://api.github.com').replace(/\/+$/, ''),
        };
    }
  });

/** Whether the configured `url` is a URL (`scheme://…`) rather than a path to a local repository. */
export function isRemoteUrl(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
}

/** `user@host:path` (scp-like, what GitHub shows under "SSH"): Git reads it as SSH, never as a folder. */
const SCP_LIKE = /^[A-Za-z0-9._-]+@([A-Za-z0-9.-]+):(?!\/\/)\/?(.+)$/;

/**
 * The https URL of an SSH-form remote (`git@github.com:org/state.git`, `ssh://git@host/org/state.git`),
 * or undefined when `url` is not one. The user (`git`) and any port belong to SSH and are dropped.
 */
function httpsFormOf(url: string): string | undefined {
  const scp = SCP_LIKE.exec(url);
  if (scp) return `https://${scp[1]}/${scp[2]}`;
  if (!/^(ssh|git\+ssh|ssh\+git):\/\//i.test(url) || !URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return `https://${parsed.hostname}${parsed.pathname}`;
}

/**
 * How a repository's commits are signed (docs/signing.md): Git's `gpg.format`, and where the
 * private key is, a variable or a file (a mounted Secret), never the configuration itself.
 */
const signing = z
  .strictObject({
    format: z.enum(['ssh', 'openpgp']),
    keyEnv: envVar.optional(),
    keyFile: z.string().min(1).optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.keyEnv === undefined) === (value.keyFile === undefined))
      ctx.addIssue({ code: 'custom', message: 'must name the key with exactly one of keyEnv and keyFile' });
  });

/**
 * The host whose pull requests a propose target opens (docs/pull-requests.md): read from the URL
 * for github.com, dev.azure.com and gitlab.com, named here for any other host.
 */
const forge = z.strictObject({
  kind: z.enum(['github', 'azure-repos', 'gitlab', 'gitea']),
  apiUrl: apiUrl.optional(),
});

const repository = z
  .strictObject({
    name,
    url: repositoryUrl,
    auth: repositoryAuth.optional(),
    signing: signing.optional(),
    forge: forge.optional(),
    committer: z
      .strictObject({ name: z.string().min(1).max(256), email: z.string().min(3).max(256).includes('@') })
      .prefault({ name: 'kubescribe', email: 'kubescribe@localhost' }),
    /** For a local path: create an empty bare repository there at start when nothing is there. */
    createIfMissing: z.boolean().prefault(false),
  })
  .superRefine((value, ctx) => {
    if (value.createIfMissing && isRemoteUrl(value.url)) {
      ctx.addIssue({
        code: 'custom',
        path: ['createIfMissing'],
        message: 'applies to a local path only; a remote repository is created on its server',
      });
    }
    if (!value.auth || !URL.canParse(value.url)) return;
    if (!mayCarryCredential(new URL(value.url))) {
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message:
          'must be https:// when auth is set (plain http:// only to a loopback host): the token would cross the network in clear',
      });
    }
  });

const window = z
  .strictObject({
    idleTimeout: duration(DAY_MS, '24h').prefault('5s'),
    maxDuration: duration(DAY_MS, '24h').prefault('1m'),
  })
  .prefault({})
  .superRefine((value, ctx) => {
    if (value.idleTimeout > value.maxDuration) {
      ctx.addIssue({ code: 'custom', path: ['idleTimeout'], message: 'must not be longer than maxDuration' });
    }
  })
  .transform((value) => ({ idleTimeoutMs: value.idleTimeout, maxDurationMs: value.maxDuration }));

const targetPath = z
  .string()
  .prefault('.')
  .transform((text, ctx) => {
    const checked = checkTargetPath(text);
    if (!checked.ok) {
      ctx.addIssue({ code: 'custom', message: checked.message });
      return z.NEVER;
    }
    return checked.path;
  });

// Recipients and the key are checked when the app builds its targets, not here: a mistake in them
// makes that target refuse Secrets with a condition saying why (shared/secrets/encryption-problem.ts)
// instead of stopping the app and every other target with it.
const encryption = z.strictObject({
  age: z.strictObject({ recipients: z.array(z.string()) }),
  /** A random secret (≥ 32 characters) that keys the encryption's derivations: never in Git. */
  keyEnv: envVar,
});

const target = z
  .strictObject({
    name,
    repository: name,
    branch,
    parentBranch: branch.optional(),
    path: targetPath,
    /**
     * `portable`: file names every common OS can check out (docs/payloads.md, "Case and Windows
     * names: native and portable paths");
     * `native` (the default, what every earlier release wrote): the names as Kubernetes gives them.
     */
    paths: z.enum(['native', 'portable']).prefault('native'),
    /**
     * `Always` by default: a resync (the forwarder's snapshots, `POST …/snapshots`) leaves the folder
     * equal to the cluster within its scope, as the docs promise; `OnEvent` opts out of the sweep.
     */
    prune: z.enum(['Never', 'OnEvent', 'Always']).prefault('Always'),
    window,
    /** Secrets are recorded, SOPS-encrypted for these recipients, only on a target that has this (docs/secrets.md). */
    encryption: encryption.optional(),
    /** Accepted changes are kept and not published while true (docs/api.md, "Suspend and resume"). */
    suspend: z.boolean().prefault(false),
    /** Changes not recorded for this target, by who made them (docs/configuration.md, "Exclusions"). */
    exclude: exclusionSchema.optional(),
    /**
     * On a target an `eventHub` source records, how long a change with no author (the forwarder's)
     * waits for its audit record to claim it (docs/connect-a-cluster.md, "The forwarder and Event
     * Hubs together"); `0s` commits it at once. Default `2m`.
     */
    attributionWait: duration(MAX_ATTRIBUTION_WAIT_MS, '10m').optional(),
    /**
     * `push` (the default): commits land on `branch`; `propose`: they land on `proposeBranch` and one
     * pull request proposes them to `branch` (docs/pull-requests.md).
     */
    publish: z.enum(['push', 'propose']).prefault('push'),
    proposeBranch: branch.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.publish === 'propose') {
      if (value.parentBranch !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['parentBranch'],
          message: 'does not apply with publish: propose (the proposed branch starts from branch)',
        });
      if (value.proposeBranch === value.branch)
        ctx.addIssue({ code: 'custom', path: ['proposeBranch'], message: 'must differ from branch' });
    } else if (value.proposeBranch !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['proposeBranch'],
        message: 'applies with publish: propose only',
      });
    }
    if (value.paths !== 'portable') return;
    // the target's own folder must be portable too, and leave room for the deepest object's path
    const portable =
      value.path === '.' || value.path.split('/').every((segment) => escapeSegment(segment) === segment);
    if (!portable || value.path.length > PORTABLE_MAX_TARGET_PATH)
      ctx.addIssue({
        code: 'custom',
        path: ['path'],
        message: `with paths: portable, must be at most ${PORTABLE_MAX_TARGET_PATH} characters of a-z, 0-9, ".", "_", "-" and "/", no segment a Windows device name (con, aux, nul…) or ending in "."`,
      });
  });

const quietAfter = duration(7 * DAY_MS, '168h').refine((ms) => ms > 0, 'must be more than 0s');

/** A source that posts to the HTTP routes with its bearer token (audit webhook, forwarder, admission). */
const webhookSource = z.strictObject({
  name,
  kind: z.literal('webhook').prefault('webhook'),
  tokenEnv: envVar,
  targets: z.array(z.union([z.literal('*'), name])).min(1, 'must list at least one target, or "*"'),
  /** A kubeconfig (its YAML, in this variable) to write CommitRequest status back to this cluster. */
  kubeconfigEnv: envVar.optional(),
  /** `read`: the token may read status and lists but never write (a dashboard, monitoring). */
  access: z.enum(['write', 'read']).prefault('write'),
  /** A feed (audit webhook, forwarder) silent this long raises `SourceQuiet` on its targets. */
  quietAfter: quietAfter.optional(),
  /** Changes this source sends that are not recorded, on any of its targets (docs/configuration.md, "Exclusions"). */
  exclude: exclusionSchema.optional(),
});

// Event Hubs names: 1-256 letters, digits, ".", "-", "_" (a consumer group also `$Default`).
const hubName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,255}$/, 'must be an Event Hub name');
const consumerGroup = z
  .string()
  .regex(/^(\$Default|[A-Za-z0-9][A-Za-z0-9._-]{0,255})$/, 'must be a consumer group name or "$Default"');

/**
 * An AKS cluster's audit log, streamed by a diagnostic setting to an Event Hub that the app's
 * Event Hubs trigger reads (docs/connect-a-cluster.md, "AKS through Event Hubs"). It sends no
 * token: the trigger reads the hub with the app's identity.
 */
const eventHubSource = z.strictObject({
  name,
  kind: z.literal('eventHub'),
  eventHub: z.strictObject({
    /** The app-setting prefix of the identity-based connection: `<connection>__fullyQualifiedNamespace`. */
    connection: envVar
      .refine(
        (value) => value === 'KUBESCRIBE_EVENTHUB',
        "must be KUBESCRIBE_EVENTHUB: the app's Event Hubs trigger binds that connection",
      )
      .prefault('KUBESCRIBE_EVENTHUB'),
    hub: hubName,
    consumerGroup: consumerGroup.prefault('$Default'),
    /** `kube-audit-admin` has every change and no get or list; `kube-audit` adds them (read and ignored). */
    categories: z
      .array(z.enum(AUDIT_CATEGORIES))
      .min(1, 'must list at least one category')
      .prefault(['kube-audit-admin']),
  }),
  /** The targets every audit event of this cluster is recorded in. */
  targets: z.array(name).min(1, 'must list at least one target'),
  quietAfter: quietAfter.optional(),
  /** Changes of this cluster that are not recorded, on any of its targets (docs/configuration.md, "Exclusions"). */
  exclude: exclusionSchema.optional(),
});

const source = z.discriminatedUnion('kind', [webhookSource, eventHubSource]);

const limits = z
  .strictObject({
    branchBufferBytes: byteQuantity.prefault('8Mi'),
    queueItems: z.number().int().min(1).max(1_000_000).prefault(1000),
    gitCallTimeout: duration(DAY_MS, '24h').prefault('2m'),
    publishTimeout: duration(DAY_MS, '24h').prefault('5m'),
    retry: z
      .strictObject({
        initial: duration(DAY_MS, '24h').prefault('10s'),
        max: duration(DAY_MS, '24h').prefault('5m'),
      })
      .prefault({}),
    pushCooldown: duration(DAY_MS, '24h').prefault('10s'),
    // Lower only: the defaults are what keeps the branch entity's state under 1 MB (shared/api/snapshot-parts.ts).
    snapshotParts: z.number().int().min(1).max(SNAPSHOT_PARTS_MAX).prefault(SNAPSHOT_PARTS_MAX),
    branchSnapshotParts: z
      .number()
      .int()
      .min(1)
      .max(BRANCH_SNAPSHOT_PARTS_MAX)
      .prefault(BRANCH_SNAPSHOT_PARTS_MAX),
    repositoryConcurrency: z.number().int().min(1).max(64).prefault(2),
    /** How often an open pull request is read to see it merged or closed (docs/pull-requests.md). */
    pullRequestPoll: duration(DAY_MS, '24h')
      .prefault('30s')
      .refine((ms) => ms >= 1000, 'must be at least 1s'),
  })
  .prefault({})
  .superRefine((value, ctx) => {
    if (value.gitCallTimeout > value.publishTimeout) {
      ctx.addIssue({
        code: 'custom',
        path: ['gitCallTimeout'],
        message: 'must not be longer than publishTimeout',
      });
    }
    if (value.retry.initial > value.retry.max) {
      ctx.addIssue({
        code: 'custom',
        path: ['retry', 'initial'],
        message: 'must not be longer than retry.max',
      });
    }
    // A snapshot at its limit must fit the branch's: its parts, and its record counted as parts.
    if (value.branchSnapshotParts < value.snapshotParts + SNAPSHOT_RECORD_PARTS) {
      ctx.addIssue({
        code: 'custom',
        path: ['branchSnapshotParts'],
        message: `must be at least snapshotParts + ${SNAPSHOT_RECORD_PARTS}`,
      });
    }
    if (value.retry.initial === 0) {
      ctx.addIssue({ code: 'custom', path: ['retry', 'initial'], message: 'must be more than 0s' });
    }
  })
  .transform((value) => ({
    branchBufferBytes: value.branchBufferBytes,
    queueItems: value.queueItems,
    gitCallTimeoutMs: value.gitCallTimeout,
    publishTimeoutMs: value.publishTimeout,
    retry: { initialMs: value.retry.initial, maxMs: value.retry.max },
    pushCooldownMs: value.pushCooldown,
    snapshotParts: value.snapshotParts,
    branchSnapshotParts: value.branchSnapshotParts,
    repositoryConcurrency: value.repositoryConcurrency,
    pullRequestPollMs: value.pullRequestPoll,
  }));

const server = z
  .strictObject({
    host: z.string().min(1).prefault('127.0.0.1'),
    port: z.number().int().min(0).max(65535).prefault(7071),
    auth: z.enum(['required', 'disabled']).prefault('required'),
    /**
     * `token`: `/metrics` asks for a source's bearer token (one with `access: read` is enough), for
     * a server whose address others reach; `none` (the default) leaves it open, as Prometheus
     * scrapes by default.
     */
    metricsAuth: z.enum(['none', 'token']).prefault('none'),
  })
  .prefault({})
  .superRefine((value, ctx) => {
    if (value.auth === 'disabled' && value.metricsAuth === 'token') {
      ctx.addIssue({
        code: 'custom',
        path: ['metricsAuth'],
        message: 'needs auth: required (there are no tokens to ask for)',
      });
    }
    if (value.auth === 'disabled' && !isLoopbackHost(value.host)) {
      ctx.addIssue({
        code: 'custom',
        path: ['auth'],
        message: 'may be "disabled" only when host is a loopback address (127.0.0.1, ::1, localhost)',
      });
    }
  });

// What a commit header cannot hold (Git refuses the commit): a template with one is refused here.
const identityTemplate = z
  .string()
  .min(1)
  .max(256)
  // a pattern's named capture (`$<user>`) is the only `<` or `>` allowed
  .refine(
    (text) => !/[<>\p{Cc}]/u.test(text.replace(/\$<[A-Za-z_$][\w$]*>/g, '')),
    'must not contain <, > or a control character (other than a capture such as $<user>)',
  );
const authorIdentity = { name: identityTemplate.optional(), email: identityTemplate.optional() };
const usernamePattern = z
  .string()
  .min(1)
  .max(512)
  .superRefine((pattern, ctx) => {
    try {
      anchored(pattern);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `is not a regular expression: ${(error as Error).message}` });
    }
  });
/** One rule from a cluster identity to a Git author (docs/configuration.md, "Commit authors"). */
const authorRule = z
  .union([
    z.strictObject({ username: z.string().min(1), ...authorIdentity }),
    z.strictObject({ usernamePattern, ...authorIdentity }),
    z.strictObject({ group: z.string().min(1), ...authorIdentity }),
  ])
  .refine((rule) => rule.name !== undefined || rule.email !== undefined, 'must give a name, an email or both')
  .refine(
    // a pattern's e-mail is checked once filled in (an invalid one falls back to the default form)
    (rule) => 'usernamePattern' in rule || rule.email === undefined || isEmailAddress(rule.email),
    { path: ['email'], message: 'must be an e-mail address such as jane@example.com' },
  );

const authors = z
  .strictObject({
    emailDomain: z
      .string()
      .regex(/^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)+$/, {
        message: 'must be a domain name such as users.noreply.example.com',
      })
      .prefault(DEFAULT_AUTHOR_MAPPING.emailDomain),
    rules: z.array(authorRule).max(1000).prefault([]),
  })
  .prefault({});

const sensitiveResource = z
  .string()
  .regex(
    /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    'must be "resource" or "group/resource", e.g. "sealedsecrets" or "bitnami.com/sealedsecrets"',
  );

/**
 * The configuration file (v1) of docs/configuration.md as a zod schema: unknown keys are refused,
 * defaults filled in, durations parsed to `…Ms` and quantities to bytes. Cross-references (a target's
 * repository, a source's targets, overlapping paths on one branch) are checked here too, so a parsed
 * configuration is internally consistent.
 */
export const configFileSchema = z
  .strictObject({
    repositories: z.array(repository).min(1, 'must list at least one repository'),
    targets: z.array(target).min(1, 'must list at least one target'),
    sources: z.array(source).prefault([]),
    limits,
    server,
    sensitiveResources: z.array(sensitiveResource).prefault([]),
    /** How cluster identities become Git authors (docs/configuration.md, "Commit authors"). */
    authors,
  })
  .superRefine((config, ctx) => {
    unique(config.repositories, 'repositories', ctx);
    unique(config.targets, 'targets', ctx);
    unique(config.sources, 'sources', ctx);
    // The app has one Event Hubs trigger, bound to one hub and consumer group.
    config.sources.forEach((s, index) => {
      if (s.kind === 'eventHub' && config.sources.findIndex((other) => other.kind === 'eventHub') < index) {
        ctx.addIssue({
          code: 'custom',
          path: ['sources', index, 'kind'],
          message: 'only one eventHub source is supported',
        });
      }
    });
    const repositoryNames = new Set(config.repositories.map((r) => r.name));
    const targetNames = new Set(config.targets.map((t) => t.name));
    config.targets.forEach((t, index) => {
      if (!repositoryNames.has(t.repository)) {
        ctx.addIssue({
          code: 'custom',
          path: ['targets', index, 'repository'],
          message: `names no repository (known: ${[...repositoryNames].join(', ')})`,
        });
      }
      if (t.parentBranch === t.branch) {
        ctx.addIssue({
          code: 'custom',
          path: ['targets', index, 'parentBranch'],
          message: 'must differ from branch',
        });
      }
    });
    config.sources.forEach((s, index) => {
      s.targets.forEach((name, position) => {
        if (name !== '*' && !targetNames.has(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['sources', index, 'targets', position],
            message: `names no target (known: ${[...targetNames].join(', ')}, or "*")`,
          });
        }
      });
    });
    config.targets.forEach((t, index) => {
      const repository = config.repositories.find((r) => r.name === t.repository);
      if (t.publish !== 'propose' || !repository) return;
      const problem = proposalProblem(repository);
      if (problem) ctx.addIssue({ code: 'custom', path: ['targets', index, 'publish'], message: problem });
    });
    const urlOf = new Map(config.repositories.map((r) => [r.name, r.url]));
    overlappingPaths(
      config.targets.map((t) => ({ ...t, branch: writeBranchOf(t) })),
      (name) => urlOf.get(name) ?? name,
      ctx,
    );
  });

/**
 * Why a target cannot propose on `repository`, if it cannot: its pull requests are opened on the
 * repository's host, through its REST API, with the repository's own credentials.
 */
function proposalProblem(repository: {
  name: string;
  url: string;
  auth?: unknown;
  forge?: { kind: ForgeKind; apiUrl?: string | undefined } | undefined;
}): string | undefined {
  if (!isRemoteUrl(repository.url))
    return `propose needs a repository on a Git host: repository "${repository.name}" is a local path`;
  if (repository.auth === undefined)
    return `propose needs the repository's credentials for its host's API: repository "${repository.name}" has no auth`;
  try {
    const forge = repository.forge;
    locateRepository(
      repository.url,
      forge
        ? { kind: forge.kind, ...(forge.apiUrl !== undefined ? { apiUrl: forge.apiUrl } : {}) }
        : undefined,
    );
    return undefined;
  } catch (error) {
    return error instanceof ForgeLocationUnknown ? `propose: ${error.data.reason}` : String(error);
  }
}

function unique(items: { name: string }[], field: string, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.name)) {
      ctx.addIssue({
        code: 'custom',
        path: [field, index, 'name'],
        message: `duplicates the name "${item.name}"`,
      });
    }
    seen.add(item.name);
  });
}

/**
 * Two targets writing the same branch (same remote URL, even under two repository names) must own
 * disjoint folders, or one could delete the other's files.
 */
function overlappingPaths(
  targets: { name: string; repository: string; branch: string; path: string }[],
  remoteOf: (repository: string) => string,
  ctx: z.RefinementCtx,
): void {
  const contains = (outer: string, inner: string) =>
    outer === '.' || inner === outer || inner.startsWith(`${outer}/`);
  targets.forEach((t, index) => {
    for (const other of targets.slice(0, index)) {
      if (remoteOf(other.repository) !== remoteOf(t.repository) || other.branch !== t.branch) continue;
      if (contains(other.path, t.path) || contains(t.path, other.path)) {
        ctx.addIssue({
          code: 'custom',
          path: ['targets', index, 'path'],
          message: `overlaps target "${other.name}" on the same branch`,
        });
      }
    }
  });
}

/** The configuration as the app uses it: defaults applied, durations in milliseconds. */
export type KubescribeConfig = z.output<typeof configFileSchema>;
/** The configuration file as written (YAML or JSON), before defaults. */
export type KubescribeConfigFile = z.input<typeof configFileSchema>;
export type RepositoryConfig = KubescribeConfig['repositories'][number];
/** How a repository's commits are signed. */
export type RepositorySigning = NonNullable<RepositoryConfig['signing']>;
/** A repository's Git credentials, by kind. */
export type RepositoryAuth = NonNullable<RepositoryConfig['auth']>;
export type TargetConfig = KubescribeConfig['targets'][number];

/** The branch a propose target proposes its commits from when it names none. */
export function defaultProposeBranch(target: string): string {
  return `kubescribe/${target}`;
}

/**
 * The branch a target's commits land on: its `branch`, or with `publish: propose` the branch its
 * pull request proposes (`proposeBranch`, `kubescribe/<target>` by default).
 */
export function writeBranchOf(target: {
  name: string;
  branch: string;
  publish?: 'push' | 'propose';
  proposeBranch?: string | undefined;
}): string {
  return target.publish === 'propose'
    ? (target.proposeBranch ?? defaultProposeBranch(target.name))
    : target.branch;
}
export type SourceConfig = KubescribeConfig['sources'][number];
export type WebhookSourceConfig = Extract<SourceConfig, { kind: 'webhook' }>;
export type EventHubSourceConfig = Extract<SourceConfig, { kind: 'eventHub' }>;

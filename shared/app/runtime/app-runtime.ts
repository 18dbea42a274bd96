import type { AuthMode, AuthorizedSource } from '../../api/auth';
import type { BranchCommand } from '../../branch';
import { type LoadedConfig, type RepositoryConfig, type TargetConfig, writeBranchOf } from '../../config';
import type { PayloadStore } from '../../payloads';
import type { KeyEscrowStore } from '../../payloads/key-escrow-store';
import type { NormalizeTarget } from '../../resources';
import type { AuthorMapping } from '../../resources/commit-author';
import { createEncryptionCounters, type EncryptionCounters } from '../../secrets/encryption-counts';
import { secretEncryptor, targetEncryption } from '../../secrets/secret-encryption';
import type { SopsEncryption } from '../../secrets/sops-document';
import { createRepositoryAdmission, type RepositoryAdmission } from '../activities/repository-admission';
import type { FeedMemoryStore } from '../eventhub/feed-memory';
import { type BranchKey, branchKeyFor } from './branch-key';
import { type NotRecordedLog, notRecordedLog } from './not-recorded-log';
import { type SourceActivity, sourceActivity } from './source-activity';

/** A configured target with everything a request for it needs. */
export interface ResolvedTarget {
  config: TargetConfig;
  repository: RepositoryConfig;
  branch: BranchKey;
  sensitiveResources: readonly string[];
  /** How its changes' cluster identities become Git authors (`authors` of the configuration). */
  authors: AuthorMapping;
  /** Encrypts a Secret into its SOPS document; absent when the target has no `encryption`. */
  encryptSecret?: NormalizeTarget['encryptSecret'];
  /** The recipients and derivation key its Secrets are encrypted with; absent without `encryption`. */
  encryption?: SopsEncryption;
  /** Why its `encryption` cannot be used (it then refuses Secrets), and since when this instance knows. */
  encryptionProblem?: { message: string; since: string };
  /**
   * Present when an `eventHub` source records the target (combined with the forwarder): how long a
   * change with no author waits for its audit record. Its changes then carry their object's uid.
   */
  attributionWaitMs?: number;
}

/** The attribution wait of a target an Event Hubs feed records and that names none: diagnostic logs arrive within minutes. */
export const DEFAULT_ATTRIBUTION_WAIT_MS = 2 * 60_000;

/** What every function of the app shares in one process, built once from the configuration. */
export interface AppRuntime {
  loaded: LoadedConfig;
  payloads: PayloadStore;
  /** Wrapped data keys of published Secret files, for re-wrapping them when recipients change. */
  keyEscrow?: KeyEscrowStore;
  /** What the at-least-once feeds (Event Hubs) remember of each object they recorded. */
  feedMemory?: FeedMemoryStore;
  sources: AuthorizedSource[];
  authMode: AuthMode;
  targets: ReadonlyMap<string, ResolvedTarget>;
  /** Request bodies above this are refused with 413. */
  bodyLimitBytes: number;
  /** The adapter's clock (ms since the epoch): when the HTTP layer must know how late it is. */
  nowMs: () => number;
  /** What each target's Secret encryption did in this instance (shared/secrets/encryption-counts.ts). */
  encryptionCounters: EncryptionCounters;
  /** When each source last sent, for the quiet-source alarm (`sources[].quietAfter`). */
  activity: SourceActivity;
  /** Events not recorded, logged once per target, source and reason per interval. */
  notRecordedLog: NotRecordedLog;
  /** The Git activities each repository runs in this process, held to `limits.repositoryConcurrency`. */
  gitAdmission: RepositoryAdmission;
}

/** The contract's default body limit (docs/api.md). */
export const DEFAULT_BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** Builds the app's runtime from a loaded configuration and an opened payload store. */
export function createAppRuntime({
  loaded,
  payloads,
  keyEscrow,
  feedMemory,
  nowMs,
}: {
  loaded: LoadedConfig;
  payloads: PayloadStore;
  keyEscrow?: KeyEscrowStore;
  feedMemory?: FeedMemoryStore;
  nowMs: () => number;
}): AppRuntime {
  const { config, secrets } = loaded;
  const repositories = new Map(config.repositories.map((repository) => [repository.name, repository]));
  const targets = new Map<string, ResolvedTarget>();
  const encryptionCounters = createEncryptionCounters();
  const startedAt = new Date(nowMs()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const auditFed = new Set(
    config.sources.flatMap((source) => (source.kind === 'eventHub' ? source.targets : [])),
  );
  for (const target of config.targets) {
    const problem = secrets.encryptionProblems?.[target.name];
    const repository = repositories.get(target.repository)!;
    const key = secrets.encryptionKeys?.[target.name];
    const encryption =
      target.encryption && key
        ? targetEncryption({
            recipients: target.encryption.age.recipients,
            key: key.reveal(),
            target: target.name,
          })
        : undefined;
    targets.set(target.name, {
      config: target,
      repository,
      branch: branchKeyFor(repository.url, writeBranchOf(target)),
      sensitiveResources: config.sensitiveResources,
      authors: config.authors,
      ...(encryption
        ? { encryption, encryptSecret: encryptionCounters.counted(target.name, secretEncryptor(encryption)) }
        : {}),
      ...(problem ? { encryptionProblem: { message: problem, since: startedAt } } : {}),
      ...(auditFed.has(target.name)
        ? { attributionWaitMs: target.attributionWait ?? DEFAULT_ATTRIBUTION_WAIT_MS }
        : {}),
    });
  }
  const sources = config.sources.flatMap((source) =>
    source.kind !== 'webhook'
      ? []
      : [
          {
            name: source.name,
            token: secrets.sourceTokens[source.name]!.reveal(),
            targets: source.targets,
            access: source.access,
          },
        ],
  );
  return {
    loaded,
    payloads,
    ...(keyEscrow ? { keyEscrow } : {}),
    ...(feedMemory ? { feedMemory } : {}),
    sources,
    authMode: config.server.auth,
    targets,
    bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES,
    nowMs,
    encryptionCounters,
    gitAdmission: createRepositoryAdmission(),
    notRecordedLog: notRecordedLog(),
    activity: sourceActivity(
      config.sources.flatMap((source) =>
        source.quietAfter === undefined
          ? []
          : [{ source: source.name, targets: source.targets, quietAfterMs: source.quietAfter }],
      ),
      nowMs(),
    ),
  };
}

/**
 * The commands that bring the branch's view of a target and its limits in line with the
 * configuration. They are sent before every piece of work, so a configuration change takes
 * effect at the next request; the branch records a fact only when something changed.
 */
export function settingsCommands(runtime: AppRuntime, target: ResolvedTarget, at: string): BranchCommand[] {
  const limits = runtime.loaded.config.limits;
  return [
    {
      type: 'ConfigureBranch',
      at,
      limits: {
        bufferBytes: limits.branchBufferBytes,
        retryInitialMs: limits.retry.initialMs,
        retryMaxMs: limits.retry.maxMs,
        pushCooldownMs: limits.pushCooldownMs,
        pullRequestPollMs: limits.pullRequestPollMs,
      },
    },
    {
      type: 'ChangeSettings',
      at,
      target: target.config.name,
      path: target.config.path,
      window: target.config.window,
      prune: target.config.prune,
      // a proposed branch starts from the branch its pull request merges into
      parentBranch:
        target.config.publish === 'propose' ? target.config.branch : (target.config.parentBranch ?? null),
      suspend: target.config.suspend,
      attributionWaitMs: target.attributionWaitMs ?? 0,
      publish: target.config.publish,
    },
  ];
}

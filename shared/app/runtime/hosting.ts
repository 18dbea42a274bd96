import { ConfigInvalid, type LoadedConfig } from '../../config';
import { KubescribeError } from '../../errors';
import { EMBEDDED_HOST_VARIABLE } from '../../host-marker';

type Env = Record<string, string | undefined>;

/**
 * Whether the app runs on the Functions host (Azure, or Core Tools) rather than the embedded host.
 * `WEBSITE_INSTANCE_ID` is set on every Azure instance and wins over the embedded host's mark.
 */
export function onFunctionsHost(env: Env): boolean {
  return Boolean(env.WEBSITE_INSTANCE_ID) || env[EMBEDDED_HOST_VARIABLE] !== '1';
}

/** The configuration would serve the API without authentication where `server.host` does not bound it. */
export class HostingRefused extends KubescribeError<{ reason: 'default-configuration' | 'auth-disabled' }> {
  static readonly code = 'HostingRefused';
  readonly code = HostingRefused.code;
}

/**
 * Refuses, on the Functions host, the configurations that turn authentication off: the host
 * listens wherever the platform puts it and ignores `server.host`, so the loopback rule that allows
 * `auth: disabled` (and the default configuration, which uses it) protects nothing there.
 */
export function checkHosting(loaded: LoadedConfig, env: Env): void {
  if (!onFunctionsHost(env)) return;
  if (loaded.origin.kind === 'default') {
    throw new HostingRefused(
      'no configuration was given (set KUBESCRIBE_CONFIG or KUBESCRIBE_CONFIG_CONTENT): the default one disables auth and is for the embedded host (npm start) only',
      { reason: 'default-configuration' },
    );
  }
  if (loaded.config.server.auth === 'disabled') {
    throw new HostingRefused(
      'server.auth is "disabled", which the Functions host would serve publicly (it ignores server.host); set server.auth to "required" and configure sources',
      { reason: 'auth-disabled' },
    );
  }
}

/** What a publish activity needs beside its publication bound: reading payloads, recording the result. */
export const FUNCTION_TIMEOUT_MARGIN_MS = 60_000;
// The Functions host's own default where host.json sets none (Consumption plan, the shortest).
const DEFAULT_FUNCTION_TIMEOUT_MS = 5 * 60_000;

/** host.json's `functionTimeout` in ms (`hh:mm:ss`, optionally `d.hh:mm:ss`); unbounded (`-1`) is Infinity. */
export function functionTimeoutMs(hostJson: unknown): number {
  const value = (hostJson as { functionTimeout?: unknown } | null)?.functionTimeout;
  if (value === undefined) return DEFAULT_FUNCTION_TIMEOUT_MS;
  if (value === '-1') return Number.POSITIVE_INFINITY;
  const match = typeof value === 'string' ? /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})$/.exec(value) : null;
  if (!match)
    throw new Error(`host.json: functionTimeout "${String(value)}" is not a duration like "00:10:00"`);
  const [, days = '0', hours, minutes, seconds] = match;
  return (((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000;
}

/**
 * Refuses a `publishTimeout` the host would cut short: past `functionTimeout` the host fails the
 * activity and restarts the worker, aborting every invocation on it, so a publication must end
 * (by its own bound) with a margin to spare.
 */
export function checkPublishTimeout(loaded: LoadedConfig, timeoutMs: number): void {
  const limitMs = timeoutMs - FUNCTION_TIMEOUT_MARGIN_MS;
  if (loaded.config.limits.publishTimeoutMs <= limitMs) return;
  throw new ConfigInvalid(
    loaded.origin.kind === 'default' ? 'the default configuration' : 'the configuration',
    [
      {
        path: 'limits.publishTimeout',
        message: `${loaded.config.limits.publishTimeoutMs / 1000}s does not fit the host's functionTimeout of ${timeoutMs / 1000}s with ${FUNCTION_TIMEOUT_MARGIN_MS / 1000}s to spare: at most ${Math.max(0, limitMs) / 1000}s`,
      },
    ],
  );
}

/** host.json's `extensions.durableTask.maxConcurrentActivityFunctions`, if it sets one. */
export function maxConcurrentActivities(hostJson: unknown): number | undefined {
  const value = (
    hostJson as { extensions?: { durableTask?: { maxConcurrentActivityFunctions?: unknown } } } | null
  )?.extensions?.durableTask?.maxConcurrentActivityFunctions;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Refuses a `repositoryConcurrency` that lets one repository take every activity slot of an
 * instance: while its calls hang (each until `gitCallTimeout`), no other repository would publish.
 * Without a host.json limit the host's default (10 per processor) leaves room for any allowed value.
 */
export function checkRepositoryConcurrency(loaded: LoadedConfig, activitySlots: number | undefined): void {
  const perRepository = loaded.config.limits.repositoryConcurrency;
  if (activitySlots === undefined || perRepository < activitySlots) return;
  throw new ConfigInvalid(
    loaded.origin.kind === 'default' ? 'the default configuration' : 'the configuration',
    [
      {
        path: 'limits.repositoryConcurrency',
        message: `${perRepository} would let one repository whose calls hang hold all ${activitySlots} activity slots of host.json's maxConcurrentActivityFunctions: at most ${activitySlots - 1}`,
      },
    ],
  );
}

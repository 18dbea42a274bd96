import { EMBEDDED_HOST_VARIABLE } from '../../../embedded/host-marker';
import type { LoadedConfig } from '../../config';
import { KubescribeError } from '../../errors';

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

import { scrubSecrets } from '../errors';
import { GitRemoteRefused } from './errors';
import type { GitAuth, GitRemote } from './types';

/**
 * Turns a configured remote (a URL, or a local path to a bare repository) into a {@link GitRemote}.
 * Only smart HTTP is spoken, so SSH and scp-like URLs are refused; a password or token inside the URL
 * is refused too (tokens come from the environment, never from the configuration file), while a user
 * name alone (as Azure Repos' clone URLs carry) is dropped.
 *
 * @example parseRemote({ url: 'https://github.com/acme/fleet.git', auth: { username: 'x-access-token', token } })
 * @throws GitRemoteRefused naming the URL without credentials
 */
export function parseRemote({ url, auth }: { url: string; auth?: GitAuth }): GitRemote {
  const shown = scrubSecrets(url);
  const refuse = (reason: string) => new GitRemoteRefused({ url: shown, reason });
  if (/^ssh:\/\//i.test(url) || /^[^/:@\s]+@[^/:\s]+:/.test(url) || /^git\+ssh:/i.test(url)) {
    throw refuse('SSH is not supported; use the https URL with a token');
  }
  if (/^file:/i.test(url) || url.startsWith('/')) {
    if (auth) throw refuse('a local repository takes no credentials');
    const path = url.replace(/^file:\/\//i, '');
    if (!path.startsWith('/')) throw refuse('a local repository needs an absolute path');
    return { kind: 'local', path };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('not a URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw refuse(`the ${parsed.protocol.replace(/:$/, '')} transport is not supported; use https`);
  }
  if (parsed.password) {
    throw refuse('credentials must not be part of the URL; name a token environment variable instead');
  }
  // Azure Repos' "Clone" button copies `https://org@dev.azure.com/...`: a user name alone is no
  // secret and the host ignores it, so it is dropped rather than refused
  parsed.username = '';
  if (parsed.search || parsed.hash) throw refuse('a query or fragment is not allowed');
  const clean = parsed.toString().replace(/\/+$/, '');
  return auth ? { kind: 'http', url: clean, auth } : { kind: 'http', url: clean };
}

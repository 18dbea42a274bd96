import { isIP } from 'node:net';

type Env = Record<string, string | undefined>;

const pick = (env: Env, name: string) => env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;

/** Whether `NO_PROXY` (comma or space separated: `*`, host names and domain suffixes, IPs, each with an optional `:port`) names this host. */
function bypassed(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
      const [name, onlyPort] = bracketed
        ? [bracketed[1]!, bracketed[2]]
        : isIP(entry)
          ? [entry, undefined]
          : (entry.split(':') as [string, string | undefined]);
      if (onlyPort && onlyPort !== port) return false;
      const suffix = name.toLowerCase().replace(/^\*?\./, '');
      return host === suffix || (isIP(host) === 0 && host.endsWith(`.${suffix}`));
    });
}

/**
 * The proxy a request to `target` goes through, as git and curl read the environment:
 * `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy`/`HTTP_PROXY` for http ones, none for a
 * host `no_proxy`/`NO_PROXY` names. A proxy given without a scheme is `http://`.
 */
export function proxyFor(target: URL, env: Env = process.env): URL | undefined {
  const setting = pick(env, target.protocol === 'https:' ? 'https_proxy' : 'http_proxy');
  if (!setting || bypassed(target, pick(env, 'no_proxy'))) return undefined;
  return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(setting) ? setting : `http://${setting}`);
}

/** The `Proxy-Authorization` header for a proxy URL carrying a user name (and password). */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const user = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(user).toString('base64')}` };
}

/**
 * The Host header check of the host's servers. A browser page whose name an attacker points at
 * 127.0.0.1 (DNS rebinding) reaches a loopback server with its own name in Host: a server answers
 * only to the names it is known by.
 */

/** Why a request's Host header is refused (400 malformed or missing, 421 another name), if it is. */
export function hostHeaderProblem(
  header: string | undefined,
  allowed: (hostname: string) => boolean,
): { status: 400 | 421; message: string } | undefined {
  const found = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)(:\d{1,5})?$/.exec(header ?? '');
  // A port past 65535 passes the pattern but breaks every URL built from the header.
  if (!found || Number(found[2]?.slice(1) ?? 0) > 65_535)
    return { status: 400, message: 'The Host header is missing or is not a host name.' };
  const hostname = found[1]!.toLowerCase();
  if (!allowed(hostname)) {
    return { status: 421, message: 'This server does not answer to the host name the request names.' };
  }
  return undefined;
}

/** A loopback name as it appears in a Host header (`localhost`, `127.x.x.x`, `[::1]`). */
export function isLoopbackName(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * The names a server bound to `bindHost` answers to: loopback names, the bound address itself, and
 * `extra`; a server bound to every interface (`0.0.0.0`, `::`) cannot know the names it is reached
 * by, so it takes any well-formed one unless `extra` lists them.
 */
export function allowedHostNames(
  bindHost: string,
  extra: readonly string[] = [],
): (hostname: string) => boolean {
  const wildcard = bindHost === '' || bindHost === '0.0.0.0' || bindHost === '::' || bindHost === '[::]';
  if (wildcard && extra.length === 0) return () => true;
  const asHeader = (name: string) =>
    (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name).toLowerCase();
  const names = new Set([...(wildcard ? [] : [asHeader(bindHost)]), ...extra.map(asHeader)]);
  return (hostname) => isLoopbackName(hostname) || names.has(hostname);
}

import nodeHttp from 'node:http';
import nodeHttps from 'node:https';
import { isIP, type Socket } from 'node:net';
import tls from 'node:tls';
import { GitHttpRefused } from './errors';
import { proxyAuthorization } from './http-proxy';
import { classifyHttpStatus } from './http-status';

/**
 * A TLS connection to `target` through `proxy`'s CONNECT tunnel: the proxy sees the host name and
 * port only, never the request (nor its Authorization). The server's certificate is checked against
 * node's trusted roots (with `NODE_EXTRA_CA_CERTS`), as a direct connection's is.
 * @throws GitHttpRefused when the proxy refuses the tunnel (407: its own credentials)
 */
export function openTunnel({
  proxy,
  target,
  signal,
}: {
  proxy: URL;
  target: URL;
  signal: AbortSignal;
}): Promise<tls.TLSSocket> {
  const authority = `${target.hostname}:${target.port || '443'}`;
  return new Promise((resolve, reject) => {
    const client = proxy.protocol === 'https:' ? nodeHttps : nodeHttp;
    const request = client.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...proxyAuthorization(proxy) },
      signal,
      agent: false,
    });
    request.on('error', reject);
    request.on('connect', (res, socket: Socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        const refusal = classifyHttpStatus({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
        });
        return reject(
          new GitHttpRefused({
            ...refusal,
            cause: `the proxy ${proxy.host} refused a tunnel to ${authority}: ${refusal.cause}`,
          }),
        );
      }
      const host = target.hostname.replace(/^\[|\]$/g, '');
      const secured = tls.connect({ socket, ...(isIP(host) ? {} : { servername: host }) });
      secured.once('secureConnect', () => resolve(secured));
      secured.once('error', reject);
    });
    request.end();
  });
}

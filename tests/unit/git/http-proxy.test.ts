import { proxyAuthorization, proxyFor } from '../../../shared/git/http-proxy';

const at = (url: string, env: Record<string, string>) => proxyFor(new URL(url), env)?.href;

describe('the proxy a Git request goes through', () => {
  it('is HTTPS_PROXY for https and HTTP_PROXY for http, lower case first, http:// when no scheme is given', () => {
    const env = {
      HTTPS_PROXY: 'proxy.corp:3128',
      http_proxy: 'http://plain.corp:80',
      HTTP_PROXY: 'http://upper.corp',
    };
    expect([at('https://github.com/a/b.git', env), at('http://git.lan/r.git', env)]).toEqual([
      'http://proxy.corp:3128/',
      'http://plain.corp/',
    ]);
    expect(
      at('https://github.com/a/b.git', { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' }),
    ).toBe('http://lower:1/');
    expect(at('https://github.com/a/b.git', { HTTP_PROXY: 'http://only-http:1' })).toBeUndefined();
  });

  it.each([
    ['github.com', 'https://github.com/a.git'],
    ['.github.com', 'https://api.github.com/x'],
    ['*.azure.com', 'https://dev.azure.com/o/p/_git/r'],
    ['azure.com', 'https://dev.azure.com/o/p/_git/r'],
    ['*', 'https://anything.example/r.git'],
    ['10.0.0.5', 'https://10.0.0.5/r.git'],
    ['git.lan:8443', 'https://git.lan:8443/r.git'],
    ['[::1]', 'https://[::1]:9000/r.git'],
  ])('is none when NO_PROXY %p names the host of %s', (noProxy, url) => {
    expect(
      at(url, { HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: `example.org, ${noProxy}` }),
    ).toBeUndefined();
  });

  it.each([
    ['hub.com', 'https://github.com/a.git'],
    ['git.lan:8443', 'https://git.lan/r.git'],
    ['0.0.5', 'https://10.0.0.5/r.git'],
  ])('is still the proxy when NO_PROXY %p only looks like the host of %s', (noProxy, url) => {
    expect(at(url, { https_proxy: 'http://proxy:3128', no_proxy: noProxy })).toBe('http://proxy:3128/');
  });

  it('carries the proxy user and password from its URL as Proxy-Authorization, decoded', () => {
    expect(proxyAuthorization(new URL('http://corp%40x:p%3Ass@proxy:3128'))).toEqual({
      'proxy-authorization': `Basic ${Buffer.from('corp@x:p:ss').toString('base64')}`,
    });
    expect(proxyAuthorization(new URL('http://proxy:3128'))).toEqual({});
  });
});

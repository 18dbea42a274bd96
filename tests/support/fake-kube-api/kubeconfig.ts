/**
 * A kubeconfig (YAML) for a client of the fake at `url`, authenticating with `token`. Over HTTPS the
 * fake's certificate is trusted as the cluster CA (`caCert`); plain HTTP is only accepted by
 * client-node with `insecure-skip-tls-verify`.
 */
export function kubeconfigFor({
  url,
  token,
  caCert,
}: {
  url: string;
  token: string;
  caCert?: string;
}): string {
  const trust =
    caCert === undefined
      ? 'insecure-skip-tls-verify: true'
      : `certificate-authority-data: "${Buffer.from(caCert).toString('base64')}"`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: fake',
    `    cluster: { server: "${url}", ${trust} }`,
    'users:',
    '  - name: kubescribe',
    `    user: { token: "${token}" }`,
    'contexts:',
    '  - name: fake',
    '    context: { cluster: fake, user: kubescribe }',
    'current-context: fake',
    '',
  ].join('\n');
}

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A throwaway self-signed certificate for 127.0.0.1, made by the openssl CLI, written to `dir` as
 * `tls.crt` and `tls.key` (the names a Kubernetes TLS Secret mounts); returns both in PEM.
 */
export function writeLoopbackCertificate(
  dir: string,
  commonName = '127.0.0.1',
): { cert: string; key: string } {
  execFileSync(
    'openssl',
    [
      ...[
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
      ],
      ...['-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt')],
    ],
    { stdio: 'ignore' },
  );
  return {
    cert: readFileSync(join(dir, 'tls.crt'), 'utf8'),
    key: readFileSync(join(dir, 'tls.key'), 'utf8'),
  };
}

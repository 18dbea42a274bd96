import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLoopbackCertificate } from '../tls/loopback-certificate';

/** A throwaway self-signed certificate for 127.0.0.1: the fake's own "cluster CA". */
export async function makeLoopbackCertificate(): Promise<{ key: string; cert: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'kubescribe-fake-tls-'));
  try {
    return writeLoopbackCertificate(dir, 'fake-kube-apiserver');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

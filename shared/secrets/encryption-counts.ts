import { createHash } from 'node:crypto';
import type { KubeObject } from '../resources/kube-object';

/**
 * What a target's Secret encryption did since this instance started (the target status's
 * `encryption.counts`; metrics read them through `AppRuntime.encryptionCounters.of(target)`):
 * - `attempts`: Secrets encrypted; `failures`: of them, those that threw (the request failed, nothing
 *   was stored);
 * - `unchangedSkips`: Secrets that encrypted to the same file as the last one this instance saw for
 *   that Secret: Git gets the same blob, no commit;
 * - `rewrapped`: files published re-wrapped for recipients other than they were encrypted for (held
 *   through a rotation, or by a rotation commit); `kept`: files a rotation had to leave for their
 *   earlier recipients (no data key kept for them).
 */
export type EncryptionCounts = {
  attempts: number;
  failures: number;
  unchangedSkips: number;
  rewrapped: number;
  kept: number;
};

// Last file digest per Secret, per target: enough to tell a repeat from a change, bounded.
const REMEMBERED_SECRETS = 10_000;

/** The counters of every target of one instance. */
export type EncryptionCounters = {
  /** Wraps a target's encryptor so that every call is counted. */
  counted<E extends (secret: { object: KubeObject; plaintextYaml: string }) => string>(
    target: string,
    encrypt: E,
  ): E;
  published(target: string, outcome: 'unchanged' | 'rewrapped' | 'kept'): void;
  of(target: string): EncryptionCounts;
};

export function createEncryptionCounters(): EncryptionCounters {
  const counts = new Map<string, EncryptionCounts>();
  const last = new Map<string, Map<string, string>>();
  const of = (target: string) => {
    let entry = counts.get(target);
    if (!entry) {
      entry = { attempts: 0, failures: 0, unchangedSkips: 0, rewrapped: 0, kept: 0 };
      counts.set(target, entry);
    }
    return entry;
  };
  return {
    counted(target, encrypt) {
      const seen = last.get(target) ?? new Map<string, string>();
      last.set(target, seen);
      return ((secret) => {
        const entry = of(target);
        entry.attempts++;
        let file: string;
        try {
          file = encrypt(secret);
        } catch (error) {
          entry.failures++;
          throw error;
        }
        const name = `${secret.object.metadata.namespace ?? ''}/${secret.object.metadata.name}`;
        const digest = createHash('sha256').update(file).digest('base64');
        if (seen.get(name) === digest) entry.unchangedSkips++;
        else {
          if (seen.size >= REMEMBERED_SECRETS && !seen.has(name)) seen.delete(seen.keys().next().value!);
          seen.set(name, digest);
        }
        return file;
      }) as typeof encrypt;
    },
    published(target, outcome) {
      if (outcome !== 'unchanged') of(target)[outcome]++;
    },
    of: (target) => ({ ...of(target) }),
  };
}

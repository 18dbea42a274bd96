import { isAgeRecipient } from './age-recipient';

/**
 * What is wrong with a target's age recipients, naming the field (never a key), or undefined when
 * they can be used: a typo would encrypt Secrets for nobody, so such a target encrypts nothing.
 */
export function encryptionProblem(recipients: readonly string[], path: string): string | undefined {
  if (recipients.length === 0) return `${path} lists no age recipient`;
  const bad = recipients.findIndex((recipient) => !isAgeRecipient(recipient));
  if (bad >= 0)
    return `${path}[${bad}] is not an age X25519 public key ("age1…", 62 characters, as age-keygen prints it)`;
  const twice = recipients.findIndex((recipient, index) => recipients.indexOf(recipient) !== index);
  if (twice >= 0) return `${path}[${twice}] lists a recipient twice`;
  return undefined;
}

/**
 * Why a key's text cannot be used, completing "the signing key …" (`is protected by a passphrase`);
 * never quoting the key.
 */
export class KeyUnreadable extends Error {}

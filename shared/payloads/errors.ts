import { KubescribeError } from '../errors';

/** A payload reference is not of the form `sha256:<64 lowercase hex>`. */
export class PayloadRefInvalid extends KubescribeError<{ ref: string }> {
  static readonly code = 'PayloadRefInvalid';
  readonly code = PayloadRefInvalid.code;

  constructor(ref: string) {
    const shown = ref.length > 80 ? `${ref.slice(0, 80)}…` : ref;
    super(`payload reference "${shown}" is not sha256:<64 hex digits>`, { ref: shown });
  }
}

/** No payload is stored under this reference. */
export class PayloadNotFound extends KubescribeError<{ ref: string }> {
  static readonly code = 'PayloadNotFound';
  readonly code = PayloadNotFound.code;

  constructor(ref: string) {
    super(`payload ${ref} is not stored`, { ref });
  }
}

/** The bytes stored under a reference do not hash to it: storage was altered or damaged. */
export class PayloadCorrupt extends KubescribeError<{ ref: string; actual: string }> {
  static readonly code = 'PayloadCorrupt';
  readonly code = PayloadCorrupt.code;

  constructor(ref: string, actual: string) {
    super(`payload ${ref} is corrupt: its content hashes to ${actual}`, { ref, actual });
  }
}

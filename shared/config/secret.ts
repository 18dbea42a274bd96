import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A secret read from the environment. It prints as `[redacted]` in logs, JSON and `util.inspect`,
 * so a configuration object can be logged whole without leaking a token; `reveal()` is the one
 * deliberate way to the value.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret's value, for the one call that needs it (an Authorization header, a client). */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

import { KubescribeError } from '../errors';

/** One problem in a payload, at a path such as `items[3].responseObject.metadata.name`. */
export type PayloadIssue = { path: string; message: string };

/**
 * A cluster payload is malformed: nothing of it is accepted. Messages name fields and rules, never
 * field values, so a refused Secret's data cannot leak through the error.
 */
export class PayloadInvalid extends KubescribeError<{ payload: string; issues: PayloadIssue[] }> {
  static readonly code = 'PayloadInvalid';
  readonly code = PayloadInvalid.code;

  constructor(payload: string, issues: PayloadIssue[]) {
    const shown = issues.slice(0, 5).map((issue) => `${issue.path || '(body)'}: ${issue.message}`);
    const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
    super(`${payload} is invalid: ${shown.join('; ')}${more}`, { payload, issues });
  }
}

/** A payload renders to more YAML than one request may hold; nothing of it is accepted. */
export class PayloadRendersTooLarge extends KubescribeError<{ payload: string; limitBytes: number }> {
  static readonly code = 'PayloadRendersTooLarge';
  readonly code = PayloadRendersTooLarge.code;

  constructor(limitBytes: number) {
    super(`the objects of this body render to more than ${limitBytes} bytes of YAML`, {
      payload: 'body',
      limitBytes,
    });
  }
}

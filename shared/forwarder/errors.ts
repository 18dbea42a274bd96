import { KubescribeError } from '../errors';

/** The forwarder's configuration file was refused; `issues` name each field's path. */
export class ForwarderConfigInvalid extends KubescribeError<{ issues: { path: string; message: string }[] }> {
  static readonly code = 'ForwarderConfigInvalid';
  readonly code = ForwarderConfigInvalid.code;
}

/** The Kubernetes API answered a list or watch with a failure Status (410 means: relist). */
export class KubeReadFailed extends KubescribeError<{ status: number; reason: string; path: string }> {
  static readonly code = 'KubeReadFailed';
  readonly code = KubeReadFailed.code;

  /** The resourceVersion is older than the server's history: only a fresh snapshot can continue. */
  get expired(): boolean {
    return this.data.status === 410;
  }
}

/** kubescribe refused a body for good (4xx other than 429): retrying the same body cannot succeed. */
export class WebhookRejected extends KubescribeError<{ status: number; error: string; path: string }> {
  static readonly code = 'WebhookRejected';
  readonly code = WebhookRejected.code;
}

/** `forward --once` stopped retrying: a one-off run that cannot reach its cluster must end, not spin. */
export class ForwardGaveUp extends KubescribeError<{ scope: string; attempts: number; lastError: string }> {
  static readonly code = 'ForwardGaveUp';
  readonly code = ForwardGaveUp.code;

  constructor(scope: string, attempts: number, lastError: string) {
    super(`gave up on ${scope} after ${attempts} failed attempts; the last: ${lastError}`, {
      scope,
      attempts,
      lastError,
    });
  }
}

import { KubescribeError } from '../errors';

/** A Git remote the executor cannot use (SSH, `file://`, credentials inside the URL, bad syntax). */
export class GitRemoteRefused extends KubescribeError<{ url: string; reason: string }> {
  static readonly code = 'GitRemoteRefused';
  readonly code = GitRemoteRefused.code;
  constructor(data: { url: string; reason: string }) {
    super(`Git remote ${data.url} refused: ${data.reason}`, data);
  }
}

/** The publish input failed its schema: a caller bug, never retried. */
export class GitPublishInputInvalid extends KubescribeError<{ issues: string[] }> {
  static readonly code = 'GitPublishInputInvalid';
  readonly code = GitPublishInputInvalid.code;
  constructor(data: { issues: string[] }) {
    super(`invalid Git publish input: ${data.issues.join('; ')}`, data);
  }
}

/** One write cannot be built (a path outside its target, a file where a folder is needed...). */
export class WriteRefused extends KubescribeError<{ writeId: string; cause: string }> {
  static readonly code = 'WriteRefused';
  readonly code = WriteRefused.code;
  constructor(data: { writeId: string; cause: string }) {
    super(`write ${data.writeId} refused: ${data.cause}`, data);
  }
}

/** An object read from a repository or the object cache does not hash to its id: it is not used. */
export class GitObjectCorrupt extends KubescribeError<{ oid: string; found: string }> {
  static readonly code = 'GitObjectCorrupt';
  readonly code = GitObjectCorrupt.code;
  constructor(data: { oid: string; found: string }) {
    super(
      `Git object ${data.oid} is corrupt on disk (its bytes hash to ${data.found}); it was not used`,
      data,
    );
  }
}

/** A Git call ran past its bound; the socket was closed and nothing half-written is reused. */
export class GitStepTimedOut extends KubescribeError<{ step: string; afterMs: number }> {
  static readonly code = 'GitStepTimedOut';
  readonly code = GitStepTimedOut.code;
  constructor(data: { step: string; afterMs: number }) {
    super(`Git ${data.step} did not finish within ${data.afterMs} ms`, data);
  }
}

/** The tip we asked a fetch for is no longer a branch tip on the remote: it moved meanwhile. */
export class GitTipMoved extends KubescribeError<{ tip: string }> {
  static readonly code = 'GitTipMoved';
  readonly code = GitTipMoved.code;
  constructor(data: { tip: string }) {
    super(`the remote no longer serves ${data.tip}: the branch moved during the fetch`, data);
  }
}

/** How a refused HTTP exchange is treated: retried later, a credentials problem, or permanent. */
export type HttpRefusal = {
  outcome: 'transient' | 'authFailed' | 'rejected';
  status: number;
  /** The status and what the server said, scrubbed and bounded. */
  cause: string;
  /** The server's `Retry-After` (429/503), in ms. */
  retryAfterMs?: number;
};

/** The remote answered an HTTP request with something other than success (see `http-status.ts`). */
export class GitHttpRefused extends KubescribeError<HttpRefusal> {
  static readonly code = 'GitHttpRefused';
  readonly code = GitHttpRefused.code;
  constructor(data: HttpRefusal) {
    super(data.cause, data);
  }
}

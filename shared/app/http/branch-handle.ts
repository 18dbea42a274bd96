import { ApiError } from '../../api/errors';
import {
  admissionCheck,
  type BranchCommand,
  type PublicationStatus,
  publicationStatus,
  type WithdrawAnswer,
} from '../../branch';
import {
  type BranchEntityState,
  type BranchOperationName,
  parseBranchOperation,
} from '../entity/branch-operations';
import { requestIdSource } from '../entity/request-ids';
import { type AppRuntime, type ResolvedTarget, settingsCommands } from '../runtime/app-runtime';
import type { BranchGateway } from './branch-gateway';
import { STATE_ROOM_BYTES, secondsUntilRoomFrees, stateHasRoom, storedStateBytes } from './state-room';

/**
 * The one way the HTTP layer reaches a target's branch: read its last known state, check that it
 * can take more, apply commands (always after the target's settings, so a configuration change
 * takes effect at the next request), and wake its driver.
 */
export interface BranchHandle {
  readonly target: ResolvedTarget;
  read(): Promise<BranchEntityState | undefined>;
  /**
   * Refuses with 429 and `Retry-After` what the branch's last known status says it cannot take now:
   * intake paused, the outage budget spent, or no room left in its durable state for `stateBytes` more.
   */
  checkAdmission(
    request: { bytes: number; items: number; stateBytes: number },
    at: string,
  ): Promise<PublicationStatus | undefined>;
  /** The target's settings, as the commands that bring the branch in line with the configuration. */
  settings(at: string): BranchCommand[];
  /** Signals the branch to decide the target's settings, then `commands`, in order (one signal, one request id). */
  apply(at: string, commands: readonly BranchCommand[]): Promise<void>;
  /** Signals one of the entity's other operations (the parts of a snapshot sent in pieces), with a request id. */
  signal(operation: Exclude<BranchOperationName, 'apply'>, input: Record<string, unknown>): Promise<void>;
  /** Makes sure the branch's driver runs and looks at the branch now. */
  wake(): Promise<void>;
  /** Asks the branch to withdraw a save and answers its decision. */
  withdraw(saveId: string, at: string): Promise<WithdrawAnswer>;
}

export function branchHandle(
  runtime: AppRuntime,
  gateway: BranchGateway,
  target: ResolvedTarget,
): BranchHandle {
  const branchKey = target.branch.key;
  return {
    target,
    read: () => gateway.read(branchKey),
    async checkAdmission(request, at) {
      const state = await gateway.read(branchKey);
      if (!state) return undefined;
      const status = publicationStatus(state.branch, at);
      const decision = admissionCheck(status, request, at);
      if (decision.admit) {
        if (stateHasRoom(state, request.stateBytes)) return status;
        throw new ApiError(
          'intake-paused',
          `Branch "${target.config.branch}" holds ${Math.round(storedStateBytes(state) / 1024)} KiB of durable state, as much as it may (${STATE_ROOM_BYTES / 1024} KiB; one entity may hold 1 MiB), until Git publication frees some; nothing was accepted.`,
          { retryAfterSeconds: secondsUntilRoomFrees(status, at) },
        );
      }
      throw new ApiError(
        'intake-paused',
        decision.reason === 'intake-paused'
          ? `Intake of branch "${target.config.branch}" is paused while Git publication fails; nothing was accepted.`
          : `Branch "${target.config.branch}" cannot hold these changes until Git publication recovers; nothing was accepted.`,
        { retryAfterSeconds: decision.retryAfterSeconds },
      );
    },
    settings: (at) => settingsCommands(runtime, target, at),
    apply: (at, commands) =>
      gateway.signal(
        branchKey,
        'apply',
        heldByBranch('apply', {
          requestId: newRequestId(branchKey),
          commands: [...settingsCommands(runtime, target, at), ...commands],
        }),
      ),
    signal: (operation, input) =>
      gateway.signal(
        branchKey,
        operation,
        heldByBranch(operation, { requestId: newRequestId(branchKey), ...input }),
      ),
    wake: () =>
      gateway.ensureDriver({ branchKey, repository: target.repository.name, branch: target.branch.branch }),
    withdraw: (saveId, at) => gateway.withdraw({ branchKey, saveId, at, target: target.config.name }),
  };
}

/**
 * The input, once the branch's own schema for the operation takes it: a signal the entity would
 * refuse is answered 400 here, naming the field, instead of a 2xx for something never recorded.
 */
function heldByBranch(
  operation: BranchOperationName,
  input: Record<string, unknown>,
): Record<string, unknown> {
  const parsed = parseBranchOperation(operation, input);
  if (parsed.success) return input;
  throw new ApiError(
    'invalid-input',
    'The branch cannot hold a value of this request; nothing was accepted.',
    {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    },
  );
}

/**
 * The id of this process's next signal to `branchKey`: the entity drops a signal whose id it
 * applied, since client signals are delivered at least once, and numbering them per branch lets it
 * remember them as ranges (request-ids.ts).
 */
export const newRequestId = requestIdSource();

import type { PublicationStatus } from '../../branch';
import type { DriverInput } from './driver-input';

/**
 * The Durable Task extension fails an orchestration whose custom status exceeds 16 KB of UTF-16
 * (8,192 characters of JSON), on every backend, and the eternal driver would then fail again on
 * every restart. A short error leaves room for everything else with a wide margin.
 */
export const CUSTOM_STATUS_LIMIT_CHARS = 8 * 1024;
const ERROR_CHARS = 400;
const NAME_CHARS = 200;

/** What the driver shows as its custom status: where it publishes, counts, times and a short last error. */
export interface DriverStatus {
  repository: string;
  branch: string;
  pendingWrites: number;
  pendingBytes: number;
  publishing: boolean;
  intakePaused: boolean;
  parentMissing: boolean;
  oldestPendingSince?: string;
  retryAt?: string;
  lastError?: string;
  lastPush?: { commit: string; at: string };
  window: { open: boolean; changes: number; closesAt?: string };
}

/** The driver's custom status for a plan's publication status, bounded whatever the status holds. */
export function driverStatus(input: DriverInput, status: PublicationStatus): DriverStatus {
  return {
    repository: clip(input.repository, NAME_CHARS),
    branch: clip(input.branch, NAME_CHARS),
    pendingWrites: status.pendingWrites,
    pendingBytes: status.pendingBytes,
    publishing: status.publishing,
    intakePaused: status.intakePaused,
    parentMissing: status.parentMissing,
    ...(status.oldestPendingSince ? { oldestPendingSince: status.oldestPendingSince } : {}),
    ...(status.retryAt ? { retryAt: status.retryAt } : {}),
    ...(status.lastError ? { lastError: clip(status.lastError, ERROR_CHARS) } : {}),
    ...(status.lastPush ? { lastPush: status.lastPush } : {}),
    window: {
      open: status.window.open,
      changes: status.window.changes,
      ...(status.window.closesAt ? { closesAt: status.window.closesAt } : {}),
    },
  };
}

function clip(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

import { setTimeout as sleep } from 'node:timers/promises';
import type { DurableClient } from 'durable-functions';
import * as df from 'durable-functions';
import { type DriverInput, driverStart } from '../shared/app/driver/driver-input';
import type { BranchEntityState } from '../shared/app/entity/branch-operations';
import { type BranchGateway, branchAdmission } from '../shared/app/http/branch-gateway';
import {
  BRANCH_DRIVER,
  BRANCH_ENTITY,
  driverInstanceId,
  WAKE_EVENT,
  WITHDRAW_SAVE,
  withdrawalInstanceId,
} from '../shared/app/runtime/durable-names';
import type { WithdrawAnswer } from '../shared/branch';

const TERMINAL = new Set(['Completed', 'Failed', 'Terminated', 'Canceled']);
const WITHDRAW_WAIT_MS = 20_000;

const admission = branchAdmission({ nowMs: () => Date.now() });

/** The branch entity's stored state, read now (uncached). */
export async function readBranchState(
  client: DurableClient,
  branchKey: string,
): Promise<BranchEntityState | undefined> {
  const response = await client.readEntityState<BranchEntityState>(new df.EntityId(BRANCH_ENTITY, branchKey));
  return response.entityExists ? response.entityState : undefined;
}

/**
 * Starts a branch's driver when none runs, asking the engine now (the cache of running drivers
 * would hide one that failed since). True when this call started it.
 */
export async function reviveDriver(client: DurableClient, input: DriverInput): Promise<boolean> {
  const instanceId = driverInstanceId(input.branchKey);
  const status = await client.getStatus(instanceId).catch(() => undefined);
  if (status && !TERMINAL.has(String(status.runtimeStatus))) return false;
  // Started meanwhile by a request: it runs, which is all the keeper wants.
  const started = await client.startNew(BRANCH_DRIVER, { instanceId, input: driverStart(input) }).then(
    () => true,
    () => false,
  );
  return started;
}

/** The branch gateway over a Durable Functions client (entity signals, driver starts, events). */
export function durableBranchGateway(client: DurableClient): BranchGateway {
  const entity = (branchKey: string) => new df.EntityId(BRANCH_ENTITY, branchKey);
  return {
    read: (branchKey) => admission.read(branchKey, (key) => readBranchState(client, key)),

    readNow: (branchKey) => readBranchState(client, branchKey),

    signal: (branchKey, operation, input) => client.signalEntity(entity(branchKey), operation, input),

    ensureDriver: (input) =>
      admission.wake(input.branchKey, async () => {
        const instanceId = driverInstanceId(input.branchKey);
        // The client answers a wake to an instance that has ended (HTTP 410) as if it were delivered
        // (durable-functions DurableClient.raiseEvent: `case 410: return`), and a driver ends when
        // code of another version meets it: after waking, look, and start it again if it has ended.
        await client.raiseEvent(instanceId, WAKE_EVENT, null).catch((error: unknown) => {
          // Never started (or purged): started below.
          if (!String(error).includes('No instance with ID')) throw error;
        });
        await reviveDriver(client, input);
      }),

    async driverHistory(branchKey) {
      const status = await client
        .getStatus(driverInstanceId(branchKey), { showHistory: true, showHistoryOutput: true })
        .catch(() => undefined);
      return status?.history === undefined ? undefined : [...status.history];
    },

    async withdraw({ branchKey, saveId, at, target }) {
      const instanceId = withdrawalInstanceId(branchKey, `${target}.${saveId}`, at);
      await client.startNew(WITHDRAW_SAVE, { instanceId, input: { branchKey, saveId, at, target } });
      const deadline = Date.now() + WITHDRAW_WAIT_MS;
      for (let delayMs = 5; Date.now() < deadline; delayMs = Math.min(delayMs * 2, 200)) {
        const status = await client.getStatus(instanceId);
        if (status.runtimeStatus === 'Completed') return status.output as WithdrawAnswer;
        if (TERMINAL.has(String(status.runtimeStatus)))
          throw new Error(`withdrawal ${instanceId} ended ${status.runtimeStatus}`);
        await sleep(delayMs);
      }
      throw new Error(
        `the branch did not answer the withdrawal of "${saveId}" within ${WITHDRAW_WAIT_MS / 1000}s`,
      );
    },
  };
}

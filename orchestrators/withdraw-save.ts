import type { OrchestrationContext, OrchestrationHandler } from 'durable-functions';
import * as df from 'durable-functions';
import { z } from 'zod';
import type { BranchOperationAnswer } from '../shared/app/entity/branch-operations';
import { BRANCH_ENTITY, WITHDRAW_SAVE } from '../shared/app/runtime/durable-names';

const inputSchema = z.strictObject({
  branchKey: z.string().min(1),
  saveId: z.string().min(1),
  at: z.string(),
  /** The target whose save it is; absent in withdrawals started before saves were per target. */
  target: z.string().min(1).optional(),
});

/**
 * Asks the branch to withdraw a save and returns its answer. A client can only signal an entity;
 * this orchestration is how the HTTP layer gets the branch's own decision (Withdrawn, or held).
 */
const withdrawSave: OrchestrationHandler = function* (context: OrchestrationContext) {
  const { branchKey, saveId, at, target } = inputSchema.parse(context.df.getInput());
  const answer: BranchOperationAnswer = yield context.df.callEntity(
    new df.EntityId(BRANCH_ENTITY, branchKey),
    'withdraw',
    {
      command: { type: 'WithdrawSave', at, saveId, ...(target === undefined ? {} : { target }) },
      saveId,
    },
  );
  if (!answer.ok || !answer.withdraw)
    throw new Error(`the branch refused the withdrawal: ${JSON.stringify(answer)}`);
  return answer.withdraw;
};

df.app.orchestration(WITHDRAW_SAVE, withdrawSave);

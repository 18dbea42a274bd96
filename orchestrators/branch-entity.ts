import type { EntityContext, EntityHandler } from 'durable-functions';
import * as df from 'durable-functions';
import { type BranchEntityState, runBranchOperation } from '../shared/app/entity/branch-operations';
import { BRANCH_ENTITY } from '../shared/app/runtime/durable-names';

/**
 * One entity per repository branch: the single writer of its state. Every operation is the pure
 * `runBranchOperation`; this adapter only loads, stores and answers.
 */
const branchEntity: EntityHandler<BranchEntityState> = (context: EntityContext<BranchEntityState>) => {
  const stored = context.df.getState();
  const { state, answer } = runBranchOperation(stored, context.df.operationName ?? '', context.df.getInput());
  if (!answer.ok) context.warn(`branch ${context.df.entityKey}: ${answer.error}`);
  context.df.setState(state);
  context.df.return(answer);
};

df.app.entity(BRANCH_ENTITY, branchEntity);

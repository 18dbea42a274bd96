import type { EntityContext, EntityHandler } from 'durable-functions';
import * as df from 'durable-functions';
import { reportBranchOperation } from '../shared/app/entity/branch-occurrences';
import { type BranchEntityState, runBranchOperation } from '../shared/app/entity/branch-operations';
import { BRANCH_ENTITY } from '../shared/app/runtime/durable-names';

/**
 * One entity per repository branch: the single writer of its state. Every operation is the pure
 * `runBranchOperation`; this adapter only loads, stores and answers.
 */
const branchEntity: EntityHandler<BranchEntityState> = (context: EntityContext<BranchEntityState>) => {
  const startedMs = performance.now();
  const stored = context.df.getState();
  const operation = context.df.operationName ?? '';
  const { state, answer, facts } = runBranchOperation(stored, operation, context.df.getInput());
  if (!answer.ok) context.warn(`branch ${context.df.entityKey}: ${answer.error}`);
  context.df.setState(state);
  context.df.return(answer);
  reportBranchOperation({
    branch: context.df.entityKey,
    operation,
    stored,
    state,
    facts,
    ok: answer.ok,
    durationMs: performance.now() - startedMs,
  });
};

df.app.entity(BRANCH_ENTITY, branchEntity);

import { evolve } from './evolve';
import type { BranchFact } from './facts';
import type { DeadlinePurpose } from './model';
import { defaultTargetSettings, type TargetSettings } from './settings';
import type { BranchState } from './state';
import { compactStamp } from './time';

type WithoutAt<F> = F extends unknown ? Omit<F, 'at'> : never;
/** A fact before it is stamped with the command's time. */
export type FactBody = WithoutAt<BranchFact>;

/**
 * One decision in progress: facts are recorded in order and folded as they are made, so each step
 * decides against the state the earlier steps left. `decide` returns the facts; the fold is the same
 * one `evolve` does on replay.
 */
export interface Decision {
  readonly at: string;
  readonly atMs: number;
  state: BranchState;
  readonly facts: BranchFact[];
  readonly fired: DeadlinePurpose[];
}

/** Records a fact at the decision's time and folds it into the working state. */
export function record(decision: Decision, body: FactBody): void {
  const fact = { ...body, at: decision.at } as BranchFact;
  decision.facts.push(fact);
  decision.state = evolve(decision.state, fact);
}

/** The effective settings of a target (configured, else the branch defaults). */
export function targetSettings(state: BranchState, target: string): TargetSettings {
  return state.targets[target] ?? defaultTargetSettings(state.limits);
}

/** The next write's id: unique across entity incarnations because it carries its decision time. */
export function nextWriteId(decision: Decision): string {
  return `${compactStamp(decision.at)}-${decision.state.counters.write + 1}`;
}

/** True when a fact of `type` was recorded in this decision. */
export function recorded(decision: Decision, type: BranchFact['type']): boolean {
  return decision.facts.some((fact) => fact.type === type);
}

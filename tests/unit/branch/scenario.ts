/**
 * Builders for branch scenarios: commands stamped at seconds after a fixed start (the fake clock),
 * histories of facts produced by the decider itself, and a fake driver that answers owed effects.
 */
import {
  type Author,
  type BranchCommand,
  type BranchFact,
  type BranchState,
  evolve,
  handle,
  initialState,
  owedEffects,
  type PublicationResult,
} from '../../../shared/branch';

const START_MS = Date.UTC(2026, 0, 1);

/** The instant `seconds` after the scenario's start. */
export function at(seconds: number): string {
  return new Date(START_MS + seconds * 1000).toISOString();
}

export const alice: Author = { name: 'Alice', username: 'alice', email: 'alice@example.com' };
export const bob: Author = { name: 'Bob', username: 'bob' };

export interface AdmitOptions {
  author?: Author;
  target?: string;
  path?: string;
  bytes?: number;
  attribution?: 'audit' | 'watch' | 'admission' | 'configured' | 'unresolved';
  resourceVersion?: string;
  operation?: 'upsert' | 'delete';
}

/** A one-change admit by alice on `prod` unless told otherwise. */
export function admit(seconds: number, options: AdmitOptions = {}): BranchCommand {
  const path = options.path ?? 'prod/apps/deployments/web.yaml';
  const change: Extract<BranchCommand, { type: 'AdmitChanges' }>['changes'][number] = {
    path,
    operation: options.operation ?? 'upsert',
    payloadRef: `sha256:${path}`,
    bytes: options.bytes ?? 100,
  };
  if (options.resourceVersion !== undefined) change.resourceVersion = options.resourceVersion;
  return {
    type: 'AdmitChanges',
    at: at(seconds),
    target: options.target ?? 'prod',
    author: options.author ?? alice,
    attribution: options.attribution ?? 'audit',
    changes: [change],
  };
}

type SaveCommand = Extract<BranchCommand, { type: 'RegisterSave' }>;

/** Alice's save on `prod` with the given id. */
export function registerSave(
  seconds: number,
  saveId: string,
  options: Partial<Omit<SaveCommand, 'type' | 'at' | 'saveId'>> = {},
): BranchCommand {
  return { type: 'RegisterSave', at: at(seconds), saveId, target: 'prod', author: alice, ...options };
}

export function tick(seconds: number): BranchCommand {
  return { type: 'Tick', at: at(seconds) };
}

export function withdraw(seconds: number, saveId: string): BranchCommand {
  return { type: 'WithdrawSave', at: at(seconds), saveId };
}

export function snapshot(
  seconds: number,
  revision: string,
  scope = { resource: 'deployments' },
): BranchCommand {
  return {
    type: 'ApplySnapshot',
    at: at(seconds),
    target: 'prod',
    scope,
    revision,
    payloadRef: `sha256:snapshot-${revision}`,
    bytes: 500,
  };
}

/** A fake commit SHA for a write, so tests can tell each save's own commit. */
export function shaOf(writeId: string): string {
  return `sha-${writeId}`;
}

/** The result of the attempt in flight: `published` names a SHA for every write it carried. */
export function resultOf(
  state: BranchState,
  seconds: number,
  outcome: 'published' | 'transient' | 'parentMissing' | 'rejected' | 'remoteMoved' = 'published',
  message = 'connection refused',
): BranchCommand {
  const publish = owedEffects(state).find((effect) => effect.type === 'publish');
  if (publish?.type !== 'publish') throw new Error('no publication in flight');
  let result: PublicationResult;
  if (outcome === 'published') {
    const commits: Record<string, string> = {};
    for (const write of publish.writes) commits[write.id] = shaOf(write.id);
    const last = publish.writes.at(-1);
    result = { outcome, commits, head: last ? shaOf(last.id) : 'head' };
  } else {
    result = { outcome, cause: { message } };
  }
  return { type: 'RecordPublicationResult', at: at(seconds), attempt: publish.attempt, result };
}

/** A running branch: commands are decided one after another and their facts kept as history. */
export class Branch {
  state: BranchState = initialState();
  readonly history: BranchFact[] = [];
  last: BranchFact[] = [];

  run(...commands: BranchCommand[]): this {
    for (const command of commands) {
      const { facts, state } = handle(this.state, command);
      this.state = state;
      this.history.push(...facts);
      this.last = facts;
    }
    return this;
  }

  /** Answers the publication in flight (built from the owed effect). */
  answer(seconds: number, outcome?: Parameters<typeof resultOf>[2], message?: string): this {
    return this.run(resultOf(this.state, seconds, outcome, message));
  }

  /** The state rebuilt from the history alone. */
  replayed(): BranchState {
    return this.history.reduce(evolve, initialState());
  }
}

/** Facts of a history made of commands, decided from the initial state. */
export function history(...commands: BranchCommand[]): BranchFact[] {
  return new Branch().run(...commands).history;
}

/** The facts of one type among `facts`. */
export function ofType<T extends BranchFact['type']>(
  facts: BranchFact[],
  type: T,
): Extract<BranchFact, { type: T }>[] {
  return facts.filter((fact): fact is Extract<BranchFact, { type: T }> => fact.type === type);
}

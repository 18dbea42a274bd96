/** The store's schema, row shapes and column conversions. */
import type { HistoryEvent } from './protocol';

/** A queued message: an orchestration event, or an operation for an entity. */
export type Message =
  | { kind: 'event'; executionId?: string; event: HistoryEvent }
  | {
      kind: 'op';
      name: string;
      input: string | null;
      isSignal: boolean;
      /** Sent by a client (not by an orchestration or entity): it bypasses the entity's message sorter. */
      fromClient?: boolean;
      reqId?: string;
      parent?: { instanceId: string; executionId: string };
    };

/** A queued message with its row id and target (instance id or entity id). */
export interface StoredMessage {
  id: number;
  target: string;
  message: Message;
}

/** An orchestration instance (its current execution). */
export interface InstanceRow {
  instanceId: string;
  name: string;
  executionId: string;
  status: string;
  input: unknown;
  output: unknown;
  customStatus: unknown;
  createdAt: number;
  updatedAt: number;
  parent: { instanceId: string; executionId: string; taskId: number } | null;
  runtime: string;
  /** The orchestration version it was started with ('' = none). */
  version: string;
}

/** An activity to run for an orchestration (deleted when its result is queued). */
export interface ActivityWork {
  id: number;
  instanceId: string;
  executionId: string;
  taskId: number;
  name: string;
  input: unknown;
}

/** A durable timer not yet fired. */
export interface TimerRow {
  id: number;
  instanceId: string;
  executionId: string;
  timerId: number;
  fireAt: number;
}

/**
 * The store's schema version (SQLite `user_version`). Raise it with each change to the tables and
 * add the step from the previous one to {@link MIGRATIONS}.
 */
export const STORE_SCHEMA_VERSION = 1;

/** The tables and indexes of a store created now (at {@link STORE_SCHEMA_VERSION}). */
export const SCHEMA = `
CREATE TABLE instances (
  instance_id TEXT PRIMARY KEY, name TEXT NOT NULL, execution_id TEXT NOT NULL, status TEXT NOT NULL,
  input TEXT, output TEXT, custom_status TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  parent TEXT, runtime TEXT NOT NULL, version TEXT NOT NULL DEFAULT '');
CREATE INDEX instances_by_created ON instances(created_at);
CREATE TABLE history (
  instance_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (instance_id, seq)) WITHOUT ROWID;
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, target TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX messages_by_target ON messages(target, id);
CREATE TABLE entities (id TEXT PRIMARY KEY, present INTEGER NOT NULL, state TEXT, updated_at INTEGER NOT NULL);
CREATE TABLE activities (
  id INTEGER PRIMARY KEY AUTOINCREMENT, instance_id TEXT NOT NULL, execution_id TEXT NOT NULL,
  task_id INTEGER NOT NULL, name TEXT NOT NULL, input TEXT);
CREATE TABLE timers (
  id INTEGER PRIMARY KEY AUTOINCREMENT, instance_id TEXT NOT NULL, execution_id TEXT NOT NULL,
  timer_id INTEGER NOT NULL, fire_at INTEGER NOT NULL);
CREATE INDEX timers_by_instance ON timers(instance_id, timer_id);
`;

/**
 * `MIGRATIONS[v]` takes a store from schema version `v` to `v + 1`. Version 0 is the schema of
 * release 0.1.0 (it set no `user_version`).
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the orchestration version of each instance (instances of 0.1.0 have none).
  "ALTER TABLE instances ADD COLUMN version TEXT NOT NULL DEFAULT '';",
];

/** JSON text for a column (null for null/undefined). */
export const toJson = (v: unknown): string | null =>
  v === undefined || v === null ? null : JSON.stringify(v);
/** A column's JSON text back to a value. */
export const fromJson = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : null);

/** An instances row as SQLite returns it. */
export interface RawInstance {
  instance_id: string;
  name: string;
  execution_id: string;
  status: string;
  input: string | null;
  output: string | null;
  custom_status: string | null;
  created_at: number;
  updated_at: number;
  parent: string | null;
  runtime: string;
  version: string;
}

/** A raw instances row to an {@link InstanceRow}. */
export function toInstance(r: RawInstance): InstanceRow {
  return {
    instanceId: r.instance_id,
    name: r.name,
    executionId: r.execution_id,
    status: r.status,
    input: fromJson(r.input),
    output: fromJson(r.output),
    customStatus: fromJson(r.custom_status),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    parent: fromJson(r.parent) as InstanceRow['parent'],
    runtime: r.runtime,
    version: r.version,
  };
}

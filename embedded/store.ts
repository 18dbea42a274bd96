/**
 * The host's durable state in SQLite (WAL): instances with their history, entity state, queued
 * messages, activity work items and timers. Every change that acknowledges something (a started
 * instance, a raised event, a signal, a finished episode) is one transaction, committed before the
 * acknowledgement is sent, so a `kill -9` loses nothing acknowledged.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { HistoryEvent } from './protocol';
import {
  type ActivityWork,
  fromJson,
  type InstanceRow,
  type Message,
  MIGRATIONS,
  type RawInstance,
  SCHEMA,
  STORE_SCHEMA_VERSION,
  type StoredMessage,
  type TimerRow,
  toInstance,
  toJson,
} from './store-rows';

export type { ActivityWork, InstanceRow, Message, StoredMessage, TimerRow } from './store-rows';
export { STORE_SCHEMA_VERSION } from './store-rows';

/** A store written by a later release: it is refused, and left as it is. */
export class StoreVersionError extends Error {}

/**
 * Opens (and creates) the store: a new one at the current schema version, an earlier one migrated
 * in one transaction, a later one refused ({@link StoreVersionError}) before anything is written.
 * `synchronous: 'full'` adds an fsync per commit (power-loss safety).
 */
export function openStore(path: string, options: { synchronous?: 'normal' | 'full' } = {}) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // SQLite creates the WAL and shared-memory files with the database file's mode: 0600 for all
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
  const db = new Database(path);
  const found = Number(db.pragma('user_version', { simple: true }));
  if (found > STORE_SCHEMA_VERSION) {
    db.close();
    throw new StoreVersionError(
      `The store ${path} has schema version ${found}, newer than this host's ${STORE_SCHEMA_VERSION}: ` +
        'a later release wrote it. Run that release (or a later one); the store was left unchanged.',
    );
  }
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit survives the process being killed (it is in the OS before commit
  // returns); FULL also survives power loss, at one fsync per commit.
  db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('wal_autocheckpoint = 10000');
  migrate(db, found);

  const q = {
    getInstance: db.prepare<[string], RawInstance>('SELECT * FROM instances WHERE instance_id = ?'),
    putInstance: db.prepare(
      `INSERT INTO instances (instance_id, name, execution_id, status, input, output, custom_status, created_at, updated_at, parent, runtime, version)
       VALUES (@instanceId, @name, @executionId, @status, @input, @output, @customStatus, @createdAt, @updatedAt, @parent, @runtime, @version)
       ON CONFLICT(instance_id) DO UPDATE SET name=excluded.name, execution_id=excluded.execution_id, status=excluded.status,
         input=excluded.input, output=excluded.output, custom_status=excluded.custom_status, created_at=excluded.created_at,
         updated_at=excluded.updated_at, parent=excluded.parent, runtime=excluded.runtime, version=excluded.version`,
    ),
    listInstances: db.prepare<[number, number], RawInstance>(
      'SELECT * FROM instances WHERE created_at >= ? AND created_at <= ? ORDER BY created_at, instance_id',
    ),
    deleteInstance: db.prepare<[string]>('DELETE FROM instances WHERE instance_id = ?'),
    history: db.prepare<[string], { event: string }>(
      'SELECT event FROM history WHERE instance_id = ? ORDER BY seq',
    ),
    historyLength: db.prepare<[string], { n: number }>(
      'SELECT COUNT(*) AS n FROM history WHERE instance_id = ?',
    ),
    appendHistory: db.prepare<[string, number, string]>(
      'INSERT INTO history (instance_id, seq, event) VALUES (?, ?, ?)',
    ),
    clearHistory: db.prepare<[string]>('DELETE FROM history WHERE instance_id = ?'),
    enqueue: db.prepare<[string, string]>('INSERT INTO messages (target, body) VALUES (?, ?)'),
    peek: db.prepare<[string, number], { id: number; target: string; body: string }>(
      'SELECT id, target, body FROM messages WHERE target = ? ORDER BY id LIMIT ?',
    ),
    deleteMessage: db.prepare<[number]>('DELETE FROM messages WHERE id = ?'),
    deleteMessagesOf: db.prepare<[string]>('DELETE FROM messages WHERE target = ?'),
    targets: db.prepare<[], { target: string }>('SELECT DISTINCT target FROM messages'),
    countMessages: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM messages'),
    getEntity: db.prepare<[string], { present: number; state: string | null }>(
      'SELECT present, state FROM entities WHERE id = ?',
    ),
    putEntity: db.prepare<[string, number, string | null, number]>(
      `INSERT INTO entities (id, present, state, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET present=excluded.present, state=excluded.state, updated_at=excluded.updated_at`,
    ),
    addActivity: db.prepare<[string, string, number, string, string | null]>(
      'INSERT INTO activities (instance_id, execution_id, task_id, name, input) VALUES (?, ?, ?, ?, ?)',
    ),
    getActivity: db.prepare<[number], Record<string, unknown>>('SELECT * FROM activities WHERE id = ?'),
    allActivities: db.prepare<[], { id: number }>('SELECT id FROM activities ORDER BY id'),
    deleteActivity: db.prepare<[number]>('DELETE FROM activities WHERE id = ?'),
    deleteActivitiesOf: db.prepare<[string]>('DELETE FROM activities WHERE instance_id = ?'),
    addTimer: db.prepare<[string, string, number, number]>(
      'INSERT INTO timers (instance_id, execution_id, timer_id, fire_at) VALUES (?, ?, ?, ?)',
    ),
    allTimers: db.prepare<[], Record<string, number | string>>('SELECT * FROM timers ORDER BY fire_at'),
    deleteTimer: db.prepare<[number]>('DELETE FROM timers WHERE id = ?'),
    cancelTimer: db.prepare<[string, string, number], { id: number }>(
      'DELETE FROM timers WHERE instance_id = ? AND execution_id = ? AND timer_id = ? RETURNING id',
    ),
    deleteTimersOf: db.prepare<[string]>('DELETE FROM timers WHERE instance_id = ?'),
  };

  const toTimer = (r: Record<string, number | string>): TimerRow => ({
    id: Number(r.id),
    instanceId: String(r.instance_id),
    executionId: String(r.execution_id),
    timerId: Number(r.timer_id),
    fireAt: Number(r.fire_at),
  });

  return {
    transaction<T>(fn: () => T): T {
      return db.transaction(fn)();
    },
    close(): void {
      db.close();
    },
    getInstance(id: string): InstanceRow | undefined {
      const r = q.getInstance.get(id);
      return r && toInstance(r);
    },
    putInstance(i: InstanceRow): void {
      q.putInstance.run({
        ...i,
        input: toJson(i.input),
        output: toJson(i.output),
        customStatus: toJson(i.customStatus),
        parent: toJson(i.parent),
      });
    },
    listInstances(from: number, to: number): InstanceRow[] {
      return q.listInstances.all(from, to).map(toInstance);
    },
    /** Deletes an instance with its history, queued messages, activities and timers. */
    purgeInstance(id: string): void {
      q.deleteInstance.run(id);
      q.clearHistory.run(id);
      q.deleteMessagesOf.run(id);
      q.deleteActivitiesOf.run(id);
      q.deleteTimersOf.run(id);
    },
    history(id: string): HistoryEvent[] {
      return q.history.all(id).map((r) => JSON.parse(r.event) as HistoryEvent);
    },
    historyLength(id: string): number {
      return q.historyLength.get(id)?.n ?? 0;
    },
    appendHistory(id: string, from: number, events: HistoryEvent[]): void {
      events.forEach((e, i) => {
        q.appendHistory.run(id, from + i, JSON.stringify(e));
      });
    },
    clearHistory(id: string): void {
      q.clearHistory.run(id);
    },
    /** Queues a message; answers its id. */
    enqueue(target: string, message: Message): number {
      return Number(q.enqueue.run(target, JSON.stringify(message)).lastInsertRowid);
    },
    peek(target: string, limit: number): StoredMessage[] {
      return q.peek
        .all(target, limit)
        .map((r) => ({ id: r.id, target: r.target, message: JSON.parse(r.body) as Message }));
    },
    deleteMessage(id: number): void {
      q.deleteMessage.run(id);
    },
    deleteMessagesOf(target: string): void {
      q.deleteMessagesOf.run(target);
    },
    targetsWithMessages(): string[] {
      return q.targets.all().map((r) => r.target);
    },
    messageCount(): number {
      return q.countMessages.get()?.n ?? 0;
    },
    getEntity(id: string): { exists: boolean; state: string | null } | undefined {
      const r = q.getEntity.get(id);
      return r && { exists: r.present === 1, state: r.state };
    },
    putEntity(id: string, exists: boolean, state: string | null, at: number): void {
      q.putEntity.run(id, exists ? 1 : 0, exists ? state : null, at);
    },
    addActivity(w: Omit<ActivityWork, 'id'>): number {
      return Number(
        q.addActivity.run(w.instanceId, w.executionId, w.taskId, w.name, toJson(w.input)).lastInsertRowid,
      );
    },
    getActivity(id: number): ActivityWork | undefined {
      const r = q.getActivity.get(id);
      if (!r) return undefined;
      return {
        id: Number(r.id),
        instanceId: String(r.instance_id),
        executionId: String(r.execution_id),
        taskId: Number(r.task_id),
        name: String(r.name),
        input: fromJson(r.input),
      };
    },
    activityIds(): number[] {
      return q.allActivities.all().map((r) => r.id);
    },
    deleteActivity(id: number): boolean {
      return q.deleteActivity.run(id).changes > 0;
    },
    addTimer(t: Omit<TimerRow, 'id'>): TimerRow {
      const id = Number(q.addTimer.run(t.instanceId, t.executionId, t.timerId, t.fireAt).lastInsertRowid);
      return { id, ...t };
    },
    allTimers(): TimerRow[] {
      return q.allTimers.all().map(toTimer);
    },
    deleteTimer(id: number): boolean {
      return q.deleteTimer.run(id).changes > 0;
    },
    /** Deletes a not-yet-fired timer; returns its row id if there was one. */
    cancelTimer(instanceId: string, executionId: string, timerId: number): number | undefined {
      return q.cancelTimer.get(instanceId, executionId, timerId)?.id;
    },
    deleteTimersOf(instanceId: string): void {
      q.deleteTimersOf.run(instanceId);
    },
  };
}

export type Store = ReturnType<typeof openStore>;

/** Brings the schema from `found` to the current version, in one transaction (a new store: created). */
function migrate(db: Database.Database, found: number): void {
  if (found === STORE_SCHEMA_VERSION) return;
  db.transaction(() => {
    const empty =
      db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'instances'").get() ===
      undefined;
    if (found === 0 && empty) db.exec(SCHEMA);
    else for (let v = found; v < STORE_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
  })();
}

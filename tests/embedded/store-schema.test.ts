// The embedded store across releases: every earlier schema is migrated on open, in order; a store
// written by a later release is refused and left as it was.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore, STORE_SCHEMA_VERSION, StoreVersionError } from '../../embedded/store';

const FIXTURE_0_1_0 = join(__dirname, '..', 'fixtures', 'upgrade', '0.1.0', 'host.sqlite');
/** The fixture's one branch driver, as its 0.1.0 store names it. */
const DRIVER = (() => {
  const db = new Database(FIXTURE_0_1_0, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("SELECT instance_id FROM instances WHERE name = 'branch-driver'").get() as {
      instance_id: string;
    };
    return row.instance_id;
  } finally {
    db.close();
  }
})();
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubescribe-store-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A copy of release 0.1.0's store (the fixture itself is never opened for writing). */
function storeOf010(): string {
  const path = join(dir, 'host.sqlite');
  copyFileSync(FIXTURE_0_1_0, path);
  return path;
}

function raw<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const userVersion = (db: Database.Database) => Number(db.pragma('user_version', { simple: true }));
const columns = (db: Database.Database) =>
  Object.fromEntries(
    ['instances', 'history', 'messages', 'entities', 'activities', 'timers'].map((table) => [
      table,
      db.pragma(`table_info(${table})`),
    ]),
  );

describe('given the store of release 0.1.0 (schema version 0)', () => {
  it('migrates it to the current schema on open and keeps its instances, history, entities and timers', () => {
    const path = storeOf010();
    const before = raw(path, (db) => ({
      version: userVersion(db),
      history: (
        db.prepare('SELECT COUNT(*) AS n FROM history WHERE instance_id = ?').get(DRIVER) as { n: number }
      ).n,
      timers: db.prepare('SELECT instance_id, timer_id, fire_at FROM timers ORDER BY id').all() as {
        instance_id: string;
        timer_id: number;
        fire_at: number;
      }[],
      entities: (db.prepare('SELECT id FROM entities').all() as { id: string }[]).map((row) => row.id),
    }));
    expect(before.version).toBe(0);
    expect(before.history).toBeGreaterThan(0);
    expect(before.timers.length).toBeGreaterThan(0);
    const store = openStore(path);
    try {
      expect(store.getInstance(DRIVER)).toMatchObject({
        name: 'branch-driver',
        status: 'Running',
        version: '',
      });
      expect(store.historyLength(DRIVER)).toBe(before.history);
      expect(store.allTimers()).toEqual(
        before.timers.map((timer) =>
          expect.objectContaining({
            instanceId: timer.instance_id,
            timerId: timer.timer_id,
            fireAt: timer.fire_at,
          }),
        ),
      );
      for (const id of before.entities) expect(store.getEntity(id)).toMatchObject({ exists: true });
      expect(before.entities.some((id) => id.startsWith('@branch@'))).toBe(true);
    } finally {
      store.close();
    }
    expect(raw(path, userVersion)).toBe(STORE_SCHEMA_VERSION);
  });

  it('keeps the messages queued in it', () => {
    const path = storeOf010();
    raw(path, (db) =>
      db
        .prepare('INSERT INTO messages (target, body) VALUES (?, ?)')
        .run(DRIVER, JSON.stringify({ kind: 'event', event: { EventType: 3, EventId: -1, Name: 'wake' } })),
    );
    const store = openStore(path);
    try {
      expect(store.peek(DRIVER, 10)).toEqual([
        expect.objectContaining({ target: DRIVER, message: expect.objectContaining({ kind: 'event' }) }),
      ]);
    } finally {
      store.close();
    }
  });

  it('ends with the same tables as a store created now', () => {
    const migrated = storeOf010();
    openStore(migrated).close();
    const fresh = join(dir, 'fresh', 'host.sqlite');
    openStore(fresh).close();
    expect(raw(migrated, columns)).toEqual(raw(fresh, columns));
  });

  it('writes and reads the orchestration version of an instance once migrated', () => {
    const store = openStore(storeOf010());
    try {
      const driver = store.getInstance(DRIVER)!;
      store.putInstance({ ...driver, version: '2' });
      expect(store.getInstance(DRIVER)?.version).toBe('2');
    } finally {
      store.close();
    }
  });
});

it('creates a new store at the current schema version', () => {
  const path = join(dir, 'new', 'host.sqlite');
  openStore(path).close();
  expect(raw(path, userVersion)).toBe(STORE_SCHEMA_VERSION);
  // opening it again changes nothing
  openStore(path).close();
  expect(raw(path, userVersion)).toBe(STORE_SCHEMA_VERSION);
});

it('refuses a store written by a later release, naming both versions, and leaves it unchanged', () => {
  const path = join(dir, 'later', 'host.sqlite');
  openStore(path).close();
  const later = STORE_SCHEMA_VERSION + 1;
  raw(path, (db) => {
    db.pragma('journal_mode = DELETE');
    db.pragma(`user_version = ${later}`);
  });
  const before = readFileSync(path);
  expect(() => openStore(path)).toThrow(StoreVersionError);
  expect(() => openStore(path)).toThrow(
    `has schema version ${later}, newer than this host's ${STORE_SCHEMA_VERSION}`,
  );
  expect(readFileSync(path).equals(before)).toBe(true);
  expect(raw(path, (db) => [userVersion(db), db.pragma('journal_mode', { simple: true })])).toEqual([
    later,
    'delete',
  ]);
});

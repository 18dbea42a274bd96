// What the Event Hubs feed remembers of each object: duplicates by auditID, order by resourceVersion
// (etcd revisions) for upserts and by the apiserver's stageTimestamp where a delete has none.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AUDIT_IDS_KEPT,
  type FeedCandidate,
  feedKey,
  judge,
  readRecord,
  remember,
  storeRecord,
} from '../../../../shared/app/eventhub/feed-memory';
import { createFileFeedMemory } from '../../../../shared/payloads/feed-memory-store';

const upsert = (auditID: string, resourceVersion: string, stageTimestamp: string): FeedCandidate => ({
  auditID,
  operation: 'upsert',
  resourceVersion,
  stageTimestamp,
});
const remove = (auditID: string, stageTimestamp: string): FeedCandidate => ({
  auditID,
  operation: 'delete',
  stageTimestamp,
});

describe('judge', () => {
  it('knows an auditID already recorded, even with nothing to order it by', () => {
    const record = remember(undefined, { auditID: 'a', operation: 'delete' });
    expect(judge(record, { auditID: 'a', operation: 'delete' })).toBe('duplicate');
    expect(judge(record, { auditID: 'b', operation: 'delete' })).toBe('new');
  });

  it('orders upserts by resourceVersion as integers, not as text', () => {
    const record = remember(undefined, upsert('a', '99', '2026-11-30T10:00:02.000000Z'));
    expect(judge(record, upsert('b', '100', '2026-11-30T10:00:01.000000Z'))).toBe('new');
    expect(judge(record, upsert('c', '98', '2026-11-30T10:00:03.000000Z'))).toBe('older');
    expect(judge(record, upsert('d', '99', '2026-11-30T10:00:03.000000Z'))).toBe('older');
  });

  it('orders a delete against upserts by stageTimestamp, microseconds included', () => {
    const deleted = remember(undefined, remove('d', '2026-11-30T10:00:02.000010Z'));
    expect(judge(deleted, upsert('u1', '5', '2026-11-30T10:00:02.00001Z'))).toBe('older');
    expect(judge(deleted, upsert('u2', '5', '2026-11-30T10:00:02.000011Z'))).toBe('new');
    const recreated = remember(deleted, upsert('u3', '9', '2026-11-30T10:00:04.000000Z'));
    expect(judge(recreated, remove('d2', '2026-11-30T10:00:03.000000Z'))).toBe('older');
  });

  it('keeps the newest change when an older one is remembered after it, and a bounded list of auditIDs', () => {
    let record = remember(undefined, upsert('new', '10', '2026-11-30T10:00:02.000000Z'));
    record = remember(record, upsert('old', '3', '2026-11-30T10:00:01.000000Z'));
    expect(record.newest).toEqual({ rv: '10', at: '2026-11-30T10:00:02.000000Z' });
    for (let i = 0; i < 40; i++)
      record = remember(record, upsert(`id-${i}`, String(11 + i), '2026-11-30T10:00:05Z'));
    expect(record.auditIDs).toHaveLength(AUDIT_IDS_KEPT);
    expect(record.auditIDs.at(-1)).toBe('id-39');
  });
});

describe('the file feed memory', () => {
  it('merges two writers of one object instead of losing either', async () => {
    const store = createFileFeedMemory({ folder: mkdtempSync(join(tmpdir(), 'ks-feed-')) });
    const key = feedKey('prod', 'clusters/prod/shop/configmaps/a.yaml');
    const stale = await readRecord(store, key);
    await storeRecord(store, key, remember(undefined, upsert('from-0', '5', '2026-11-30T10:00:01Z')));
    // A second writer read before the first wrote: its swap fails, it reads again and merges.
    expect(await store.write(key, '{}', stale.tag)).toBe(false);
    await storeRecord(store, key, remember(undefined, upsert('from-1', '4', '2026-11-30T10:00:00Z')));
    const { record } = await readRecord(store, key);
    expect(record).toEqual({
      v: 1,
      newest: { rv: '5', at: '2026-11-30T10:00:01Z' },
      auditIDs: ['from-0', 'from-1'],
    });
  });
});

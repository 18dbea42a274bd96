// Reading AKS diagnostic records (tests/support/eventhub/aks-records.ts cites the record shapes).
import { readDiagnosticBatch } from '../../../shared/resources/diagnostic-records';
import { auditEvent, body, otherRecords, record } from '../../support/eventhub/aks-records';

const patch = auditEvent({
  auditID: 'a1',
  verb: 'patch',
  user: 'alice@contoso.com',
  namespace: 'shop',
  name: 'settings',
  resourceVersion: '7',
  at: '2026-11-30T10:15:02.100000Z',
});

describe('readDiagnosticBatch', () => {
  it('reads properties.log as a JSON string and as an object, from bodies as the worker hands them', () => {
    const batch = readDiagnosticBatch(
      [
        body(record('kube-audit-admin', patch)),
        JSON.stringify(body(record('kube-audit-admin', patch, 'object'))),
        Buffer.from(JSON.stringify(body(record('kube-audit-admin', patch)))),
      ],
      ['kube-audit-admin'],
    );
    expect(batch.unreadable).toEqual([]);
    expect(batch.events.map(({ event, at }) => [event.auditID, at])).toEqual([
      ['a1', { body: 0, record: 0 }],
      ['a1', { body: 1, record: 0 }],
      ['a1', { body: 2, record: 0 }],
    ]);
    expect(batch.events[0]!.event).toEqual(patch);
  });

  it('counts the categories it does not read and reads only those configured', () => {
    const batch = readDiagnosticBatch(
      [body(record('kube-audit', patch), ...otherRecords(), record('kube-audit-admin', patch))],
      ['kube-audit-admin'],
    );
    expect(batch.events.map(({ category }) => category)).toEqual(['kube-audit-admin']);
    expect(batch.otherCategories).toEqual({ 'kube-audit': 1, guard: 1, 'kube-apiserver': 1 });
  });

  it('lists what it cannot read, by position, and still reads the rest', () => {
    const batch = readDiagnosticBatch(
      [
        'not json',
        { value: [] },
        body({ properties: { log: '{}' } }, record('kube-audit-admin', patch), {
          category: 'kube-audit-admin',
          properties: { log: '{"truncated' },
        }),
      ],
      ['kube-audit-admin'],
    );
    expect(batch.events).toHaveLength(1);
    expect(batch.unreadable).toEqual([
      { at: { body: 0 }, message: 'the event body is not a diagnostic log ({"records": [...]})' },
      { at: { body: 1 }, message: 'the event body is not a diagnostic log ({"records": [...]})' },
      { at: { body: 2, record: 0 }, message: 'the record has no category' },
      {
        at: { body: 2, record: 2 },
        message: "the kube-audit-admin record's properties.log is not an audit event",
      },
    ]);
  });
});

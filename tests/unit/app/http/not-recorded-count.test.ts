// A request's count of events not recorded fits any signal: an audit event's objectRef is posted
// by the apiserver as the client named it (a `get` of any name is answered 404 and still audited),
// so its examples are cut to what the branch keeps before the signal is built.
import { notRecordedCount } from '../../../../shared/app/http/not-recorded';
import { branchCommandSchema, FIELD_CHARS } from '../../../../shared/branch';
import type { Ignored } from '../../../../shared/resources';

it('counts by reason, keeps the latest example of each, cut to what the branch holds', () => {
  const long = 'n'.repeat(1_000_000);
  const ignored: Ignored[] = [
    {
      reason: 'subresource',
      message: 'subresource status is not recorded',
      identity: { group: '', resource: 'pods', name: long },
    },
    {
      reason: 'excluded',
      message: 'm'.repeat(5000),
      identity: { group: 'apps', resource: 'deployments', name: 'web' },
    },
    {
      reason: 'subresource',
      message: 'subresource exec is not recorded',
      identity: { group: '', resource: 'pods', name: long },
    },
  ];
  const counted = notRecordedCount({ ignored, recorded: [] });
  expect(counted?.counts).toEqual({ subresource: 2, excluded: 1 });
  expect(counted?.examples.map((example) => example.reason)).toEqual(['excluded', 'subresource']);
  expect(counted?.examples[1]?.message).toBe('subresource exec is not recorded');
  for (const example of counted?.examples ?? []) {
    expect(example.object.length).toBeLessThanOrEqual(FIELD_CHARS.refusal);
    expect(example.message.length).toBeLessThanOrEqual(FIELD_CHARS.refusal);
  }
  const command = { type: 'CountNotRecorded', at: '2026-12-03T10:00:00Z', target: 'prod', ...counted };
  expect(JSON.stringify(command).length).toBeLessThan(2_000);
  expect(branchCommandSchema.safeParse(command).success).toBe(true);
});

it('names nothing when the request held nothing but recorded changes', () => {
  expect(notRecordedCount({ ignored: [], recorded: [] })).toBeUndefined();
});

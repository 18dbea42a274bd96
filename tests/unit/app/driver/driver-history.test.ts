import { driverSteps } from '../../../../shared/app/driver/driver-history';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

describe('the driver steps read from its history', () => {
  it('pairs an activity with its end, with how long it took, and says why a publication failed', () => {
    const steps = driverSteps([
      { EventType: 'TaskScheduled', Timestamp: at(0), EventId: 3, Name: 'publish' },
      { EventType: 'TaskFailed', Timestamp: at(4), TaskScheduledId: 3, Reason: 'host restarted' },
      { EventType: 'TaskScheduled', Timestamp: at(5), EventId: 4, Name: 'publish' },
      {
        EventType: 'TaskCompleted',
        Timestamp: at(7),
        TaskScheduledId: 4,
        Result: JSON.stringify({ outcome: 'transient', cause: { message: 'connection refused' } }),
      },
      { EventType: 'TaskScheduled', Timestamp: at(8), EventId: 5, Name: 'read-remote' },
      { EventType: 'TaskCompleted', Timestamp: at(8), TaskScheduledId: 5, Result: '{}' },
    ]);
    expect(steps).toEqual([
      { at: at(4), kind: 'publication', detail: 'failed: host restarted (4.0s)' },
      { at: at(7), kind: 'publication', detail: 'transient: connection refused (2.0s)' },
      { at: at(8), kind: 'activity', detail: 'read-remote done (0.0s)' },
    ]);
  });

  it('says a publication did not start when its repository was busy', () => {
    const steps = driverSteps([
      { EventType: 'TaskScheduled', Timestamp: at(0), EventId: 3, Name: 'publish' },
      {
        EventType: 'TaskCompleted',
        Timestamp: at(0),
        TaskScheduledId: 3,
        Result: JSON.stringify({
          repositoryBusy: { repository: 'https://git.example/org/state', inFlight: 2 },
        }),
      },
    ]);
    expect(steps).toEqual([
      {
        at: at(0),
        kind: 'publication',
        detail: 'not started: the repository has 2 Git activities in flight (0.0s)',
      },
    ]);
  });

  it('skips what it cannot read, and keeps each detail short', () => {
    const long = 'x'.repeat(1000);
    const steps = driverSteps([
      null,
      { EventType: 'TaskCompleted' },
      { EventType: 'EventRaised', Timestamp: at(1), Name: 'unknown-call', Input: '{' },
      { EventType: 'TimerCreated', Timestamp: at(2), FireAt: long },
    ]);
    expect(steps).toHaveLength(1);
    expect(steps[0]!.detail).toHaveLength(300);
    expect(steps[0]!.detail.endsWith('…')).toBe(true);
  });
});

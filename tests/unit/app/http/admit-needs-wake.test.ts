import { admitNeedsWake } from '../../../../shared/app/http/accept-changes';
import type { PublicationStatus } from '../../../../shared/branch';

const now = Date.parse('2026-01-01T00:00:00.000Z');

function statusWithWindow(window: PublicationStatus['window']): PublicationStatus {
  return { window } as PublicationStatus;
}

describe('whether an admit wakes the branch driver', () => {
  it('wakes a branch nobody has seen yet', () => {
    expect(admitNeedsWake(undefined, now)).toBe(true);
  });

  it("wakes a branch with no open window: the new window's deadline may be the earliest", () => {
    expect(admitNeedsWake(statusWithWindow({ open: false, changes: 0 }), now)).toBe(true);
  });

  it('lets the driver sleep when the open window closes well after the signal', () => {
    const closesAt = new Date(now + 4000).toISOString();
    expect(admitNeedsWake(statusWithWindow({ open: true, changes: 3, closesAt }), now)).toBe(false);
  });

  it('wakes when the open window closes within the margin: its plan may come before the signal', () => {
    const closesAt = new Date(now + 200).toISOString();
    expect(admitNeedsWake(statusWithWindow({ open: true, changes: 3, closesAt }), now)).toBe(true);
  });
});

/**
 * A suspended target keeps its accepted work and publishes none of it; resuming publishes it. Its
 * pending write holds the whole branch (writes publish in order), and no timer stays due meanwhile.
 */
import {
  type BranchCommand,
  nextDeadline,
  owedEffects,
  publicationStatus,
  suspensionOf,
} from '../../../shared/branch';
import { admit, at, Branch, ofType, tick } from './scenario';

const suspend = (seconds: number, target = 'prod'): BranchCommand => ({
  type: 'SuspendTarget',
  at: at(seconds),
  target,
});
const resume = (seconds: number, target = 'prod'): BranchCommand => ({
  type: 'ResumeTarget',
  at: at(seconds),
  target,
});
const configure = (seconds: number, suspendTarget: boolean): BranchCommand => ({
  type: 'ChangeSettings',
  at: at(seconds),
  target: 'prod',
  suspend: suspendTarget,
});

const publishing = (branch: Branch) => owedEffects(branch.state).some((effect) => effect.type === 'publish');

describe('suspending a target', () => {
  it('keeps its closed windows pending, with no deadline left due, and publishes them on resume', () => {
    const branch = new Branch().run(suspend(0), admit(1), tick(10));
    expect(branch.state.pending).toHaveLength(1);
    expect(publishing(branch)).toBe(false);
    expect(nextDeadline(branch.state)).toBeUndefined();
    expect(suspensionOf(branch.state, 'prod')).toMatchObject({
      suspended: true,
      by: ['operator'],
      since: at(0),
      publicationHeldBy: 'prod',
      condition: { type: 'Suspended', status: 'True', reason: 'SuspendedByOperator' },
    });
    branch.run(tick(600));
    expect(publishing(branch)).toBe(false);

    branch.run(resume(601));
    expect(ofType(branch.last, 'TargetResumed')).toHaveLength(1);
    expect(ofType(branch.last, 'PublicationPlanned')).toHaveLength(1);
    expect(suspensionOf(branch.state, 'prod').suspended).toBe(false);
    expect(branch.replayed()).toEqual(branch.state);
  });

  it('holds another target of the branch while the suspended one has a write pending', () => {
    const branch = new Branch().run(
      suspend(0),
      admit(1),
      admit(2, { target: 'staging', path: 'staging/a.yaml' }),
    );
    branch.run(tick(20));
    expect(publishing(branch)).toBe(false);
    expect(suspensionOf(branch.state, 'staging')).toMatchObject({
      suspended: false,
      publicationHeldBy: 'prod',
    });

    const free = new Branch().run(
      suspend(0),
      admit(2, { target: 'staging', path: 'staging/a.yaml' }),
      tick(20),
    );
    expect(publishing(free)).toBe(true);
  });

  it('stays suspended while the configuration or the operator holds it, and records each only once', () => {
    const branch = new Branch().run(configure(0, true), suspend(1), suspend(2), configure(3, true));
    expect(ofType(branch.history, 'TargetSuspended').map((fact) => fact.by)).toEqual([
      'configuration',
      'operator',
    ]);
    branch.run(resume(4));
    expect(suspensionOf(branch.state, 'prod')).toMatchObject({
      suspended: true,
      by: ['configuration'],
      since: at(0),
    });
    branch.run(configure(5, false));
    expect(suspensionOf(branch.state, 'prod').suspended).toBe(false);
    expect(publicationStatus(branch.state, at(5)).pendingWrites).toBe(0);
  });
});

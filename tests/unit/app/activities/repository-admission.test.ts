// The per-repository limit on Git activities in one process: the repository's own activities past
// the limit are answered busy at once (no work run), other repositories are not counted against it,
// and a finished or failed activity gives its place back.
import {
  createRepositoryAdmission,
  isRepositoryBusy,
} from '../../../../shared/app/activities/repository-admission';
import { repositoryBusyWaitMs } from '../../../../shared/app/driver/driver-step';

/** A unit of work that runs until the test ends it. */
function held<T>(value: T) {
  let end: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<T>((resolve, reject) => {
    end = () => resolve(value);
    fail = reject;
  });
  return { work: () => done, end, fail };
}

describe('repository admission', () => {
  it('answers busy past the limit without running the work, and admits other repositories', async () => {
    const admission = createRepositoryAdmission();
    const first = held('first');
    const second = held('second');
    const running = [
      admission.run('https://git.example/org/state.git', 2, first.work),
      // another spelling of the same repository counts against the same limit
      admission.run('https://GIT.example/org/state', 2, second.work),
    ];
    let ran = false;
    const third = await admission.run('https://git.example/org/state.git', 2, async () => {
      ran = true;
      return 'third';
    });
    expect(ran).toBe(false);
    expect(third).toEqual({ repositoryBusy: { repository: 'https://git.example/org/state', inFlight: 2 } });
    expect(isRepositoryBusy(third)).toBe(true);
    expect(await admission.run('https://git.example/org/other.git', 2, async () => 'other')).toBe('other');

    first.end();
    second.fail(new Error('the remote hung up'));
    expect(await running[0]).toBe('first');
    await expect(running[1]).rejects.toThrow('the remote hung up');
    expect(admission.inFlight().size).toBe(0);
    expect(await admission.run('https://git.example/org/state.git', 2, async () => 'again')).toBe('again');
  });

  it('tells a publication result or a head from a busy answer', () => {
    expect(isRepositoryBusy({ outcome: 'transient', cause: { message: 'x' } })).toBe(false);
    expect(isRepositoryBusy({ found: false })).toBe(false);
    expect(isRepositoryBusy(null)).toBe(false);
  });
});

describe('the wait after a busy repository', () => {
  it('starts at a quarter second and doubles up to 16 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map(repositoryBusyWaitMs)).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 16_000, 16_000, 16_000,
    ]);
  });
});

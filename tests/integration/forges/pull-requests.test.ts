/**
 * Each host's pull requests through `openForge`, against an emulator of the host's documented REST
 * API (tests/support/forges/, each citing its documentation): find, open, update, read, a merge and
 * a close as a person makes them, and how refusals are classified.
 */
import { GitHttpRefused } from '../../../shared/git/errors';
import { openForge } from '../../../shared/git/forges/forge';
import {
  ForgeAnswerUnreadable,
  ForgeCallTimedOut,
  forgeFailure,
} from '../../../shared/git/forges/forge-errors';
import { type Emulator, forgeOn, HOSTS, rotatingCredentials } from './hosts';

const TEXT = {
  title: 'kubescribe: 2 changes in prod',
  description: '- ConfigMap default/app by alice\n- Deployment default/web by bob',
};

describe.each(HOSTS)('pull requests on $kind', (host) => {
  let emulator: Emulator;
  beforeEach(async () => {
    emulator = await host.start('the-token');
  });
  afterEach(() => emulator.stop());

  it('opens one pull request, finds it, updates its text and reads it', async () => {
    const forge = forgeOn(host, emulator);

    expect(await forge.findOpen('kubescribe/prod', 'main')).toBeUndefined();
    const opened = await forge.open('kubescribe/prod', 'main', TEXT);
    const found = await forge.findOpen('kubescribe/prod', 'main');
    const updated = await forge.update(opened.number, {
      title: 'kubescribe: 3 changes in prod',
      description: 'three',
    });
    const read = await forge.read(opened.number);

    expect(opened).toEqual({
      number: expect.any(Number),
      url: expect.stringMatching(/^https?:\/\//),
      state: 'open',
      head: 'kubescribe/prod',
      base: 'main',
    });
    expect(found).toEqual(opened);
    expect(updated).toEqual(opened);
    expect(read).toEqual(opened);
    expect(emulator.pulls()).toEqual([
      expect.objectContaining({
        number: opened.number,
        title: 'kubescribe: 3 changes in prod',
        description: 'three',
        head: 'kubescribe/prod',
        base: 'main',
      }),
    ]);
  });

  it('finds only the pull request from its own branch into its own base', async () => {
    const forge = forgeOn(host, emulator);
    await forge.open('feature/x', 'main', TEXT);
    await forge.open('kubescribe/prod', 'release', TEXT);
    const ours = await forge.open('kubescribe/prod', 'main', TEXT);

    expect(await forge.findOpen('kubescribe/prod', 'main')).toEqual(ours);
    expect(await forge.findOpen('kubescribe/stage', 'main')).toBeUndefined();
  });

  it('reads a merge with the commit it made on the base, and a close without one', async () => {
    const forge = forgeOn(host, emulator);
    const merged = await forge.open('kubescribe/prod', 'main', TEXT);
    const closed = await forge.open('kubescribe/stage', 'main', TEXT);
    emulator.merge(merged.number, 'a'.repeat(40));
    emulator.close(closed.number);

    expect(await forge.read(merged.number)).toEqual({
      ...merged,
      state: 'merged',
      mergeCommit: 'a'.repeat(40),
    });
    expect(await forge.read(closed.number)).toEqual({ ...closed, state: 'closed' });
    expect(await forge.findOpen('kubescribe/prod', 'main')).toBeUndefined();
    expect(await forge.findOpen('kubescribe/stage', 'main')).toBeUndefined();
  });

  it('opening again for the same branches brings the open pull request up to date instead of a second one', async () => {
    const forge = forgeOn(host, emulator);
    const first = await forge.open('kubescribe/prod', 'main', TEXT);
    const again = await forge.open('kubescribe/prod', 'main', { title: 'newer', description: 'newer text' });

    expect(again).toEqual(first);
    expect(emulator.pulls()).toEqual([
      expect.objectContaining({ title: 'newer', description: 'newer text' }),
    ]);
  });

  it('after a merge, the same branch opens a new pull request', async () => {
    const forge = forgeOn(host, emulator);
    const first = await forge.open('kubescribe/prod', 'main', TEXT);
    emulator.merge(first.number, 'b'.repeat(40));
    const second = await forge.open('kubescribe/prod', 'main', TEXT);

    expect(second.number).not.toBe(first.number);
    expect(second.state).toBe('open');
  });

  it('cuts a description over the host limit with a visible count of what was left out', async () => {
    const forge = forgeOn(host, emulator);
    const lines = Array.from(
      { length: Math.ceil(host.descriptionLimit / 10) },
      (_, i) => `- object ${String(i).padStart(8, '0')}`,
    );

    await forge.open('kubescribe/prod', 'main', { title: TEXT.title, description: lines.join('\n') });

    const [stored] = emulator.pulls();
    const kept = stored?.description.split('\n') ?? [];
    expect([...(stored?.description ?? '')].length).toBeLessThanOrEqual(host.descriptionLimit);
    expect(kept.at(-1)).toBe(`… and ${lines.length - (kept.length - 1)} more lines`);
    expect(kept.slice(0, -1)).toEqual(lines.slice(0, kept.length - 1));
  });

  it('sends hostile text as plain text on one title line', async () => {
    const forge = forgeOn(host, emulator);
    await forge.open('kubescribe/prod', 'main', {
      title: 'evil\r\n\u0000title\u202e)txt.exe',
      description: 'line\u0007 one\r\nline\u001b[31m two\u2066',
    });

    expect(emulator.pulls()[0]).toMatchObject({
      title: 'evil title)txt.exe',
      description: 'line one\nline[31m two',
    });
  });

  it('asks the credentials once more when the host refuses them, then succeeds', async () => {
    const credentials = rotatingCredentials(host, ['expired', 'the-token']);
    const forge = openForge({
      repositoryUrl: host.repositoryUrl,
      forge: { kind: host.kind, apiUrl: host.apiUrl(emulator) },
      credentials,
    });

    expect(await forge.findOpen('kubescribe/prod', 'main')).toBeUndefined();
    expect(credentials.asked).toBe(2);
  });

  it('a token the host refuses is authFailed, not retried', async () => {
    const forge = forgeOn(host, emulator, { token: 'wrong' });

    const error = await forge.findOpen('kubescribe/prod', 'main').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(GitHttpRefused);
    expect(forgeFailure(error)).toMatchObject({ outcome: 'authFailed' });
    expect(emulator.calls).toHaveLength(1);
    expect(JSON.stringify(forgeFailure(error))).not.toContain('wrong');
  });

  it('a pull request that does not exist is rejected, naming what was missing', async () => {
    const error = await forgeOn(host, emulator)
      .read(4242)
      .catch((e: unknown) => e);

    expect(forgeFailure(error)).toMatchObject({
      outcome: 'rejected',
      cause: expect.stringMatching(/4242.*not found \(HTTP 404\)/),
    });
  });

  it('a host error is transient, with its Retry-After', async () => {
    emulator.failNext({ status: 503, json: { message: 'unavailable' }, headers: { 'retry-after': '7' } });

    const error = await forgeOn(host, emulator)
      .findOpen('kubescribe/prod', 'main')
      .catch((e: unknown) => e);

    expect(forgeFailure(error)).toMatchObject({ outcome: 'transient', retryAfterMs: 7000 });
  });

  it('an answer that is not what the API documents is rejected as unreadable', async () => {
    emulator.failNext({ status: 200, json: { surprise: true } });

    const error = await forgeOn(host, emulator)
      .read(1)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ForgeAnswerUnreadable);
    expect(forgeFailure(error)).toMatchObject({ outcome: 'rejected' });
  });

  it('a host that does not answer is abandoned when the deadline on the clock passes', async () => {
    const timers: (() => void)[] = [];
    const clock = {
      now: () => 0,
      setTimeout: (fn: () => void) => timers.push(fn),
      clearTimeout: () => undefined,
    };
    emulator.failNext({ stall: true });
    const pending = forgeOn(host, emulator, { clock, timeoutMs: 5_000 })
      .read(1)
      .catch((e: unknown) => e);
    await new Promise<void>((resolve) => {
      const poll = () => (emulator.calls.length > 0 ? resolve() : setImmediate(poll));
      poll();
    });

    for (const fire of timers) fire();

    const error = await pending;
    expect(error).toBeInstanceOf(ForgeCallTimedOut);
    expect(forgeFailure(error)).toMatchObject({ outcome: 'transient' });
  });

  it('a host that cannot be reached is transient', async () => {
    const forge = forgeOn(host, emulator);
    await emulator.stop();

    const error = await forge.findOpen('kubescribe/prod', 'main').catch((e: unknown) => e);

    expect(forgeFailure(error)).toMatchObject({
      outcome: 'transient',
      cause: expect.stringContaining('fetch failed'),
    });
  });
});

import { expiringCredentials } from '../../../shared/git/expiring-credentials';

const MINUTE = 60_000;

function provider(lifetimeMs: number) {
  let now = 0;
  let issued = 0;
  const credentials = expiringCredentials({
    clock: { now: () => now },
    obtain: async () => ({ auth: { bearer: `t${++issued}` }, expiresAt: now + lifetimeMs }),
  });
  const signal = new AbortController().signal;
  return {
    current: () => credentials.current({ signal }),
    refused: credentials.refused,
    advance: (ms: number) => {
      now += ms;
    },
    issued: () => issued,
  };
}

describe('credentials from a provider whose tokens expire', () => {
  it('share one request between callers asking together', async () => {
    const p = provider(60 * MINUTE);
    const got = await Promise.all([p.current(), p.current(), p.current()]);
    expect(got).toEqual([{ bearer: 't1' }, { bearer: 't1' }, { bearer: 't1' }]);
    expect(p.issued()).toBe(1);
  });

  it('keep an hour-long token until 5 minutes before its expiry', async () => {
    const p = provider(60 * MINUTE);
    await p.current();
    p.advance(55 * MINUTE - 1);
    const kept = await p.current();
    p.advance(1);
    const renewed = await p.current();
    expect([kept, renewed]).toEqual([{ bearer: 't1' }, { bearer: 't2' }]);
  });

  it('keep a short-lived token for half its lifetime', async () => {
    const p = provider(4 * MINUTE);
    await p.current();
    p.advance(2 * MINUTE - 1);
    const kept = await p.current();
    p.advance(1);
    expect([kept, await p.current()]).toEqual([{ bearer: 't1' }, { bearer: 't2' }]);
  });

  it('drop a token the remote refused, but not a newer one for an older refusal', async () => {
    const p = provider(60 * MINUTE);
    const first = await p.current();
    expect(p.refused(first)).toBe(true);
    const second = await p.current();
    p.refused(first);
    expect([second, await p.current()]).toEqual([{ bearer: 't2' }, { bearer: 't2' }]);
  });
});

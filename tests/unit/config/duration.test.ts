import { parseDuration } from '../../../shared/config';

describe('Go-style durations', () => {
  it.each([
    ['2s', 2000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['0s', 0],
    ['1h2m3s4ms', 3_723_004],
    ['2000us', 2],
    ['.5s', 500],
  ])('given %p when parsed then it lasts %p milliseconds', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['5', '60', '1.5'])(
    'given the bare number %p when parsed then the hint says to add a unit',
    (text) => {
      expect(parseDuration(text)).toEqual({
        ok: false,
        message: `has no unit: write "${text}s" for seconds (or "${text}ms", "${text}m")`,
      });
    },
  );

  it.each(['', '-2s', '2 s', 's', '2d', '1m30', 'PT2S', '2S', '1.5.5s'])(
    'given %p when parsed then it is refused with an example of the format',
    (text) => {
      const parsed = parseDuration(text);
      expect(parsed.ok).toBe(false);
      expect(parsed.ok ? '' : parsed.message).toContain('"1m30s"');
    },
  );

  it('given a sub-millisecond remainder when parsed then it is refused rather than rounded', () => {
    expect(parseDuration('1500us')).toEqual({ ok: false, message: 'must be a whole number of milliseconds' });
  });
});

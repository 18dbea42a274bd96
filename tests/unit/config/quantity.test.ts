import { parseByteQuantity } from '../../../shared/config';

describe('Kubernetes byte quantities', () => {
  it.each([
    ['8Mi', 8 * 1024 * 1024],
    ['512Ki', 512 * 1024],
    ['1Gi', 1024 ** 3],
    ['1G', 1e9],
    ['1k', 1000],
    ['1.5Mi', 1.5 * 1024 * 1024],
    ['1.1k', 1100],
    ['1e6', 1_000_000],
    ['1048576', 1_048_576],
  ])('given %p when parsed then it is %p bytes', (text, bytes) => {
    expect(parseByteQuantity(text)).toEqual({ ok: true, bytes });
  });

  it.each(['', '8MB', '8mi', '-1Mi', '100m', 'Mi', '0.5', '1.0001k', '8 Mi'])(
    'given %p when parsed then it is refused',
    (text) => {
      expect(parseByteQuantity(text).ok).toBe(false);
    },
  );
});

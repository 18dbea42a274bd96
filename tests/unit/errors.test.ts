import { ensureError, KubescribeError, scrubSecrets } from '../../shared/errors';

class ExampleRefused extends KubescribeError<{ target: string }> {
  static readonly code = 'ExampleRefused';
  readonly code = ExampleRefused.code;
}

describe('KubescribeError', () => {
  it('carries its code, data and message through JSON', () => {
    const error = new ExampleRefused('target prod refused the write', { target: 'prod' });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'ExampleRefused',
      data: { target: 'prod' },
      message: 'target prod refused the write',
    });
    expect(error.name).toBe('ExampleRefused');
    expect(error).toBeInstanceOf(Error);
  });

  it('scrubs credentials from its message', () => {
    const error = new ExampleRefused('push to https://git:s3cret@example.com/r.git failed', {
      target: 'prod',
    });
    expect(error.message).not.toContain('s3cret');
  });
});

describe('scrubSecrets', () => {
  it.each([
    ['https://user:tok3n@git.example.com/org/repo.git', 'tok3n'],
    ['https://tok3n@git.example.com/org/repo.git', 'tok3n'],
    ['GET /blob?sig=tok3n&se=2026', 'tok3n'],
    ['Authorization: Bearer tok3n.abc', 'tok3n'],
    ['Authorization: Basic dXNlcjp0b2szbg==', 'dXNlcjp0b2szbg=='],
  ])('masks the secret in %s', (text, secret) => {
    expect(scrubSecrets(text)).not.toContain(secret);
  });

  it('leaves ordinary text alone', () => {
    expect(scrubSecrets('window closed: idle-timeout at https://git.example.com/r.git')).toBe(
      'window closed: idle-timeout at https://git.example.com/r.git',
    );
  });
});

describe('ensureError', () => {
  it('turns a thrown string into a scrubbed Error', () => {
    const error = ensureError('failed https://a:b@h/x');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('failed https://***@h/x');
  });
});

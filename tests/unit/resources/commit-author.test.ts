import { commitAuthor } from '../../../shared/resources/commit-author';

const committer = { name: 'kubescribe', email: 'kubescribe@example.invalid' };

describe('the commit author of a Kubernetes user', () => {
  it('is the committer when nobody is named', () => {
    expect(commitAuthor(undefined, committer)).toEqual(committer);
    expect(commitAuthor({ username: '  ' }, committer)).toEqual(committer);
  });

  it('uses the username and a constructed address for a service account', () => {
    expect(commitAuthor({ username: 'system:serviceaccount:ns:sa' }, committer)).toEqual({
      name: 'system:serviceaccount:ns:sa',
      email: 'systemserviceaccountnssa@noreply.cluster.local',
    });
  });

  it('uses a username that is an email as the address', () => {
    expect(commitAuthor({ username: 'alice@example.com' }, committer)).toEqual({
      name: 'alice@example.com',
      email: 'alice@example.com',
    });
  });

  it('prefers the OIDC display name and email claims when they are safe', () => {
    const user = {
      username: 'oidc:alice',
      extra: {
        'kubescribe.dev/claims/display-name': ['Alice Liddell'],
        'kubescribe.dev/claims/email': ['alice@corp.example'],
      },
    };
    expect(commitAuthor(user, committer)).toEqual({ name: 'Alice Liddell', email: 'alice@corp.example' });
  });

  it('ignores a display name that would break the commit header', () => {
    const user = { username: 'bob', extra: { 'kubescribe.dev/claims/display-name': ['Bob <evil@x>'] } };
    expect(commitAuthor(user, committer).name).toBe('bob');
  });

  it('falls back to unknown-user when nothing of the username survives cleaning', () => {
    expect(commitAuthor({ username: '::' }, committer).email).toBe('unknown-user@noreply.cluster.local');
  });
});

describe('a username that would break a commit header', () => {
  it.each([
    ['Jane <jane@example.com>', 'Jane jane@example.com'],
    ['<<a>>', 'a'],
    ['x\n\ny\r\u0000z', 'x y z'],
    ['<>', 'unknown-user'],
  ])('%j loses every <, > and control character', (username, name) => {
    const author = commitAuthor({ username }, committer);
    expect(author.name).toBe(name);
    expect(author.name).not.toMatch(/[<>\p{Cc}]/u);
    expect(author.email).toMatch(/^[^<>\s]+@[^<>\s]+$/);
  });
});

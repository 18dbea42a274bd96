import { type AuthorMapping, commitAuthor } from '../../../shared/resources/commit-author';

const committer = { name: 'kubescribe', email: 'kubescribe@example.invalid' };

describe('the commit author of a Kubernetes user', () => {
  it('is the committer when nobody is named', () => {
    expect(commitAuthor(undefined, committer)).toEqual(committer);
    expect(commitAuthor({ username: '  ' }, committer)).toEqual(committer);
  });

  it('names a service account by its namespace and name, a well-known controller by its product', () => {
    expect(commitAuthor({ username: 'system:serviceaccount:shop:deployer' }, committer)).toEqual({
      name: 'ServiceAccount (shop/deployer)',
      email: 'system-serviceaccount-shop-deployer@noreply.cluster.local',
    });
    expect(
      commitAuthor({ username: 'system:serviceaccount:flux-system:kustomize-controller' }, committer).name,
    ).toBe('Flux (flux-system/kustomize-controller)');
    expect(
      commitAuthor({ username: 'system:serviceaccount:argocd:argocd-application-controller' }, committer)
        .name,
    ).toBe('Argo CD (argocd/argocd-application-controller)');
    expect(
      commitAuthor({ username: 'system:serviceaccount:kube-system:deployment-controller' }, committer).name,
    ).toBe('Kubernetes (kube-system/deployment-controller)');
  });

  it('constructs an address of the username, each run of other characters a dash', () => {
    expect(commitAuthor({ username: 'system:admin' }, committer)).toEqual({
      name: 'system:admin',
      email: 'system-admin@noreply.cluster.local',
    });
    expect(commitAuthor({ username: 'oidc:Jane Doe' }, committer).email).toBe(
      'oidc-jane-doe@noreply.cluster.local',
    );
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

  it('constructs addresses at the configured e-mail domain', () => {
    const mapping = { emailDomain: 'users.noreply.acme.com', rules: [] };
    expect(commitAuthor({ username: 'system:admin' }, committer, mapping).email).toBe(
      'system-admin@users.noreply.acme.com',
    );
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

describe('authors mapped by the configured rules', () => {
  const mapping: AuthorMapping = {
    emailDomain: 'noreply.acme.com',
    rules: [
      { username: 'kubernetes-admin', name: 'Break-glass admin', email: 'oncall@acme.com' },
      {
        usernamePattern: 'oidc:(?<user>[a-z]+)\\.(?<last>[a-z]+)@acme\\.com',
        email: '$<user>.$<last>@acme.com',
      },
      { usernamePattern: 'aad:(.+)', name: 'Entra $1' },
      { group: 'platform-team', name: 'Platform team', email: 'platform@acme.com' },
      { username: 'late', name: 'never used' },
    ],
  };

  it('maps an exact username to its name and e-mail', () => {
    expect(commitAuthor({ username: 'kubernetes-admin' }, committer, mapping)).toEqual({
      name: 'Break-glass admin',
      email: 'oncall@acme.com',
    });
  });

  it('fills a pattern rule’s captures; what it does not give comes from the default form', () => {
    expect(commitAuthor({ username: 'oidc:jane.doe@acme.com' }, committer, mapping)).toEqual({
      name: 'oidc:jane.doe@acme.com',
      email: 'jane.doe@acme.com',
    });
    expect(commitAuthor({ username: 'aad:Jane' }, committer, mapping)).toEqual({
      name: 'Entra Jane',
      email: 'aad-jane@noreply.acme.com',
    });
  });

  it('matches a pattern against the whole username only', () => {
    expect(commitAuthor({ username: 'x-aad:Jane' }, committer, mapping).name).toBe('x-aad:Jane');
  });

  it('maps by group, after the username rules before it', () => {
    expect(commitAuthor({ username: 'bob', groups: ['dev', 'platform-team'] }, committer, mapping)).toEqual({
      name: 'Platform team',
      email: 'platform@acme.com',
    });
    expect(
      commitAuthor({ username: 'kubernetes-admin', groups: ['platform-team'] }, committer, mapping).name,
    ).toBe('Break-glass admin');
  });

  it('prefers a rule to the OIDC claims', () => {
    const user = {
      username: 'kubernetes-admin',
      extra: {
        'kubescribe.dev/claims/display-name': ['Someone'],
        'kubescribe.dev/claims/email': ['s@corp.example'],
      },
    };
    expect(commitAuthor(user, committer, mapping)).toEqual({
      name: 'Break-glass admin',
      email: 'oncall@acme.com',
    });
  });

  it('falls back to the default form when a filled-in name or e-mail could not be in a commit header', () => {
    const unsafe: AuthorMapping = {
      emailDomain: 'noreply.acme.com',
      rules: [{ usernamePattern: '(.*)', name: '$1', email: '$1' }],
    };
    expect(commitAuthor({ username: 'eve<x>' }, committer, unsafe)).toEqual({
      name: 'eve x',
      email: 'eve-x@noreply.acme.com',
    });
  });
});

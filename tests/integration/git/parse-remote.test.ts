import { GitRemoteRefused } from '../../../shared/git/errors';
import { parseRemote } from '../../../shared/git/parse-remote';

describe('parsing a configured remote', () => {
  it('accepts an https URL with token auth, and an absolute path to a local bare repository', () => {
    expect(parseRemote({ url: 'https://git.example.com/acme/fleet.git/', auth: { bearer: 't' } })).toEqual({
      kind: 'http',
      url: 'https://git.example.com/acme/fleet.git',
      auth: { bearer: 't' },
    });
    expect(parseRemote({ url: '/srv/git/fleet.git' })).toEqual({ kind: 'local', path: '/srv/git/fleet.git' });
    expect(parseRemote({ url: 'file:///srv/git/fleet.git' })).toEqual({
      kind: 'local',
      path: '/srv/git/fleet.git',
    });
  });

  it.each([
    'ssh://git@github.com/acme/fleet.git',
    'git@github.com:acme/fleet.git',
    'git://example.com/fleet.git',
  ])('refuses %s with a configuration error', (url) => {
    expect(() => parseRemote({ url })).toThrow(GitRemoteRefused);
    expect(() => parseRemote({ url })).toThrow(/not supported/);
  });

  it("drops the user name of a URL copied from Azure Repos' clone button", () => {
    expect(
      parseRemote({ url: 'https://contoso@dev.azure.com/contoso/fleet/_git/state', auth: { bearer: 't' } }),
    ).toEqual({ kind: 'http', url: 'https://dev.azure.com/contoso/fleet/_git/state', auth: { bearer: 't' } });
  });

  it('refuses credentials inside the URL without repeating them', () => {
    let refused: unknown;
    try {
      parseRemote({ url: 'https://bob:hunter2secret@git.example.com/acme/fleet.git' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(GitRemoteRefused);
    expect(JSON.stringify(refused)).toContain('GitRemoteRefused');
    expect(JSON.stringify(refused)).not.toContain('hunter2secret');
    expect((refused as Error).message).not.toContain('hunter2secret');
  });
});

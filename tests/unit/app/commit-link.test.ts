import { commitWebUrl } from '../../../shared/app/http/commit-link';

const SHA = '5373b031a57d5ad2116d36982b00aef4947266d3';

describe('the web page of a pushed commit', () => {
  it.each([
    ['https://github.com/org/state.git', `https://github.com/org/state/commit/${SHA}`],
    ['https://gitlab.com/group/sub/state.git', `https://gitlab.com/group/sub/state/-/commit/${SHA}`],
    ['https://gitlab.example.com/g/state', `https://gitlab.example.com/g/state/-/commit/${SHA}`],
    ['https://dev.azure.com/org/proj/_git/state', `https://dev.azure.com/org/proj/_git/state/commit/${SHA}`],
    [
      'https://org.visualstudio.com/proj/_git/state',
      `https://org.visualstudio.com/proj/_git/state/commit/${SHA}`,
    ],
    ['https://codeberg.org/me/state.git', `https://codeberg.org/me/state/commit/${SHA}`],
    ['https://gitea.example.com/me/state.git/', `https://gitea.example.com/me/state/commit/${SHA}`],
  ])('links %s', (url, expected) => {
    expect(commitWebUrl(url, SHA)).toBe(expected);
  });

  it.each(['/srv/git/state.git', 'https://git.example.com/state.git', 'https://dev.azure.com/org/proj'])(
    'links nothing for %s',
    (url) => {
      expect(commitWebUrl(url, SHA)).toBeNull();
    },
  );
});

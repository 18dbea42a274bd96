import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitCacheDir } from '../../../../shared/app/activities/remote';
import { EMBEDDED_HOST_VARIABLE } from '../../../../shared/host-marker';

describe('where a branch keeps its Git object cache', () => {
  it('is under the data folder on the embedded host, not at a predictable path in a shared temporary folder', () => {
    const dir = gitCacheDir({ [EMBEDDED_HOST_VARIABLE]: '1' }, '/var/lib/kubescribe', 'b-1234');
    expect(dir).toBe(join('/var/lib/kubescribe', 'git-cache', 'b-1234'));
    expect(dir.startsWith(tmpdir())).toBe(false);
  });

  it('is the instance’s temporary folder on the Functions host, whose app folder is read-only', () => {
    expect(gitCacheDir({ WEBSITE_INSTANCE_ID: 'abc' }, '/home/site/wwwroot/.kubescribe', 'b-1')).toBe(
      join(tmpdir(), 'kubescribe-git-cache', 'b-1'),
    );
  });

  it('is where KUBESCRIBE_GIT_CACHE says, when set', () => {
    const env = { [EMBEDDED_HOST_VARIABLE]: '1', KUBESCRIBE_GIT_CACHE: '/cache' };
    expect(gitCacheDir(env, '/data', 'b-1')).toBe(join('/cache', 'b-1'));
  });
});

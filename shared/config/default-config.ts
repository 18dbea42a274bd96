import { join } from 'node:path';
import type { KubescribeConfigFile } from './schema';

/**
 * The configuration `npm start` uses with no file: a local bare repository in the data folder, one
 * target `local` at the root of branch `main`, loopback only, auth disabled.
 * @param dataDir the embedded host's data folder (absolute).
 */
export function defaultConfigFile({ dataDir }: { dataDir: string }): KubescribeConfigFile {
  return {
    repositories: [
      {
        name: 'local',
        url: join(dataDir, 'repository.git'),
        committer: { name: 'kubescribe', email: 'kubescribe@localhost' },
        createIfMissing: true,
      },
    ],
    targets: [{ name: 'local', repository: 'local', branch: 'main', path: '.' }],
    sources: [],
    server: { host: '127.0.0.1', port: 7071, auth: 'disabled' },
  };
}

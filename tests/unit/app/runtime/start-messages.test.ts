import { createServer } from 'node:net';
import { explainStartFailure, startBanner } from '../../../../shared/app/runtime/start-messages';
import { loadConfig } from '../../../../shared/config';

const noFile = async () => {
  throw new Error('no file is read');
};

describe('the start banner', () => {
  it('names the configuration file, each target with its repository, and the data folder', async () => {
    const loaded = await loadConfig({
      env: { KUBESCRIBE_CONFIG: '/etc/kubescribe/config.json', KUBESCRIBE_DATA: '/var/lib/kubescribe' },
      readFile: async () =>
        JSON.stringify({
          repositories: [{ name: 'platform', url: 'https://git.example.com/org/state.git' }],
          targets: [
            { name: 'prod', repository: 'platform', branch: 'main', path: 'clusters/prod' },
            { name: 'edge', repository: 'platform', branch: 'edge' },
          ],
        }),
    });
    expect(startBanner({ loaded, url: 'http://127.0.0.1:7071' }).split('\n')).toEqual([
      'kubescribe is listening on http://127.0.0.1:7071 (try http://127.0.0.1:7071/api/healthz); Ctrl-C stops it.',
      'Configuration: /etc/kubescribe/config.json',
      'Targets (2):',
      '  prod: https://git.example.com/org/state.git, branch main, path clusters/prod',
      '  edge: https://git.example.com/org/state.git, branch edge, path .',
      'Data folder: /var/lib/kubescribe',
      '',
    ]);
  });

  it('with no configuration says the default is used, and that authentication is off', async () => {
    const loaded = await loadConfig({ env: {}, readFile: noFile, cwd: '/home/me' });
    const banner = startBanner({ loaded, url: 'http://127.0.0.1:7071' });
    expect(banner).toContain('Configuration: the default configuration (no KUBESCRIBE_CONFIG)\n');
    expect(banner).toContain('  local: /home/me/.kubescribe/repository.git, branch main, path .\n');
    expect(banner).toContain('Authentication is disabled');
  });
});

describe('a start that fails', () => {
  it('given the port is taken when explained then it says so and how to pick another with PORT=', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const second = createServer();
    const error = await new Promise((resolve) => {
      second.once('error', resolve);
      second.listen(port, '127.0.0.1');
    });
    await new Promise((resolve) => taken.close(resolve));
    expect(explainStartFailure(error, { host: '127.0.0.1', port })).toBe(
      `127.0.0.1:${port} is already in use (another kubescribe, or another program): start on another port with PORT, e.g. PORT=${port + 1} npm start`,
    );
  });

  it('given another error when explained then its message is kept', () => {
    expect(explainStartFailure(new Error('disk full'), { host: '127.0.0.1', port: 7071 })).toBe('disk full');
  });
});

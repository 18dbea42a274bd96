// The `kubescribe` command line, as a user meets it first: the commands, a version, help per
// command, and a plain sentence for a configuration file that is not there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../shared/forwarder/cli';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    signal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}

const version = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;

describe('kubescribe', () => {
  it('lists its commands with --help or help', async () => {
    for (const argv of [['--help'], ['help']]) {
      const { code, stdout } = await run(...argv);
      expect(code).toBe(0);
      for (const command of ['forward', 'version', 'help'])
        expect(stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it('run alone, says a command is missing and lists them, exiting 2 (a usage error, not success)', async () => {
    const { code, stdout, stderr } = await run();
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('no command given');
    expect(stderr).toMatch(/^ {2}forward /m);
  });

  it('prints its version', async () => {
    for (const argv of [['version'], ['--version']]) {
      expect(await run(...argv)).toEqual({ code: 0, stdout: `kubescribe ${version}\n`, stderr: '' });
    }
  });

  it('shows help per command', async () => {
    expect((await run('help', 'forward')).stdout).toContain('Usage: kubescribe forward --config <file>');
    expect((await run('version', '--help')).stdout).toContain('Usage: kubescribe version');
  });

  it('names an unknown command and lists the known ones, exiting 2', async () => {
    const { code, stderr } = await run('froward');
    expect(code).toBe(2);
    expect(stderr).toContain('unknown command "froward"');
    expect(stderr).toMatch(/^ {2}forward /m);
  });

  it('says plainly that a configuration file is not there, exiting 2', async () => {
    const { code, stderr } = await run('forward', '--config', '/nonexistent/forwarder.yaml');
    expect(code).toBe(2);
    expect(stderr).toBe(
      'kubescribe forward: cannot read the configuration file "/nonexistent/forwarder.yaml": there is no such file\n',
    );
  });
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import {
  ConfigInvalid,
  ConfigSecretMissing,
  ConfigUnreadable,
  type LoadedConfig,
  loadConfig,
  SettingsInvalid,
  writeBranchOf,
} from '../../../shared/config';

const fixtures = join(__dirname, '../../fixtures/config');
const readText = (path: string) => readFile(path, 'utf8');
const secrets = { GIT_TOKEN: 'git-token-value', CLUSTER_A_TOKEN: 'cluster-a-token-value' };

async function loadContent(content: unknown, env: Record<string, string> = secrets): Promise<LoadedConfig> {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  return loadConfig({ env: { ...env, KUBESCRIBE_CONFIG_CONTENT: text }, readFile: readText, cwd: '/srv' });
}

async function issuesOf(content: unknown): Promise<{ path: string; message: string }[]> {
  const error = await loadContent(content).catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConfigInvalid);
  return (error as ConfigInvalid).data.issues;
}

const minimal = {
  repositories: [{ name: 'platform', url: 'https://git.example.com/org/state.git' }],
  targets: [{ name: 'prod', repository: 'platform', branch: 'main' }],
};

describe('loading the configuration', () => {
  it('given KUBESCRIBE_CONFIG names the documented example when loaded then every value is read', async () => {
    const loaded = await loadConfig({
      env: { ...secrets, KUBESCRIBE_CONFIG: join(fixtures, 'full.yaml'), KUBESCRIBE_DATA: '/var/lib/ks' },
      readFile: readText,
    });
    expect(loaded.origin).toEqual({ kind: 'file', file: join(fixtures, 'full.yaml') });
    expect(loaded.config.targets[0]).toEqual({
      name: 'prod',
      repository: 'platform',
      branch: 'main',
      parentBranch: 'release',
      path: 'clusters/prod',
      paths: 'native',
      prune: 'OnEvent',
      window: { idleTimeoutMs: 5000, maxDurationMs: 60_000 },
      suspend: false,
      publish: 'push',
    });
    expect(loaded.config.limits).toEqual({
      branchBufferBytes: 8 * 1024 * 1024,
      queueItems: 1000,
      gitCallTimeoutMs: 120_000,
      publishTimeoutMs: 300_000,
      retry: { initialMs: 10_000, maxMs: 300_000 },
      pushCooldownMs: 10_000,
      snapshotParts: 1000,
      branchSnapshotParts: 2000,
      repositoryConcurrency: 2,
      pullRequestPollMs: 30_000,
    });
    expect(loaded.config.server).toEqual({
      host: '127.0.0.1',
      port: 7071,
      auth: 'required',
      metricsAuth: 'none',
    });
    expect(loaded.secrets.repositoryTokens.platform?.reveal()).toBe('git-token-value');
    expect(loaded.secrets.sourceTokens['cluster-a']?.reveal()).toBe('cluster-a-token-value');
    expect(loaded.dataDir).toBe('/var/lib/ks');
    expect(loaded.payloads).toEqual({ kind: 'file', folder: '/var/lib/ks/payloads' });
  });

  it('given a minimal JSON configuration in KUBESCRIBE_CONFIG_CONTENT when loaded then the defaults fill the rest', async () => {
    const { config, origin } = await loadContent(minimal, {});
    expect(origin).toEqual({ kind: 'content' });
    expect(config.targets[0]).toMatchObject({
      path: '.',
      prune: 'Always',
      window: { idleTimeoutMs: 5000, maxDurationMs: 60_000 },
    });
    expect(config.repositories[0]?.committer).toEqual({ name: 'kubescribe', email: 'kubescribe@localhost' });
    expect(config.limits.retry).toEqual({ initialMs: 10_000, maxMs: 300_000 });
    expect(config.server.auth).toBe('required');
    expect(config.sources).toEqual([]);
  });

  it('given no configuration setting when loaded then the default serves a local bare repository on loopback without auth', async () => {
    const loaded = await loadConfig({ env: {}, readFile: readText, cwd: '/home/me/app' });
    expect(loaded.origin).toEqual({ kind: 'default' });
    expect(loaded.dataDir).toBe('/home/me/app/.kubescribe');
    expect(loaded.config.repositories).toEqual([
      {
        name: 'local',
        url: '/home/me/app/.kubescribe/repository.git',
        committer: { name: 'kubescribe', email: 'kubescribe@localhost' },
        createIfMissing: true,
      },
    ]);
    expect(loaded.config.targets).toEqual([
      expect.objectContaining({ name: 'local', repository: 'local', branch: 'main', path: '.' }),
    ]);
    expect(loaded.config.server).toEqual({
      host: '127.0.0.1',
      port: 7071,
      auth: 'disabled',
      metricsAuth: 'none',
    });
    expect(loaded.payloads).toEqual({ kind: 'file', folder: '/home/me/app/.kubescribe/payloads' });
  });

  it('given PORT when loaded then it overrides the configured port', async () => {
    const loaded = await loadConfig({ env: { PORT: '8080' }, readFile: readText });
    expect(loaded.config.server.port).toBe(8080);
  });

  it('given PORT that is not a port when loaded then start-up is refused naming PORT', async () => {
    await expect(loadConfig({ env: { PORT: 'http' }, readFile: readText })).rejects.toMatchObject({
      code: SettingsInvalid.code,
      data: { settings: ['PORT'] },
    });
  });

  it('given both KUBESCRIBE_CONFIG and KUBESCRIBE_CONFIG_CONTENT when loaded then start-up is refused naming both', async () => {
    const error = await loadConfig({
      env: { KUBESCRIBE_CONFIG: '/etc/ks.yaml', KUBESCRIBE_CONFIG_CONTENT: '{}' },
      readFile: readText,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SettingsInvalid);
    expect((error as Error).message).toContain('KUBESCRIBE_CONFIG and KUBESCRIBE_CONFIG_CONTENT');
  });

  it('given KUBESCRIBE_CONFIG names a missing file when loaded then start-up is refused naming the file', async () => {
    const error = await loadConfig({
      env: { KUBESCRIBE_CONFIG: '/nowhere/ks.yaml' },
      readFile: readText,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigUnreadable);
    expect(error).toMatchObject({ data: { file: '/nowhere/ks.yaml', reason: 'ENOENT' } });
    expect((error as Error).message).toBe(
      'configuration file /nowhere/ks.yaml (KUBESCRIBE_CONFIG) could not be read: there is no such file',
    );
  });

  it('given a relative local repository path in a file when loaded then it resolves next to the file', async () => {
    const loaded = await loadConfig({
      env: { KUBESCRIBE_CONFIG: '/etc/kubescribe/config.json' },
      readFile: async () =>
        JSON.stringify({ ...minimal, repositories: [{ name: 'platform', url: 'repos/state.git' }] }),
    });
    expect(loaded.config.repositories[0]?.url).toBe('/etc/kubescribe/repos/state.git');
  });

  it('given text that is neither YAML nor JSON when loaded then it is refused at the root', async () => {
    expect(await issuesOf('repositories: [unclosed')).toEqual([
      { path: '', message: expect.stringContaining('is not valid YAML or JSON') },
    ]);
  });
});

describe('refusing a bad configuration with the field path', () => {
  it('given an unknown key when loaded then the issue names where it is', async () => {
    const issues = await issuesOf({ ...minimal, targets: [{ ...minimal.targets[0], pathh: 'x' }] });
    expect(issues).toEqual([{ path: 'targets[0]', message: expect.stringContaining('pathh') }]);
  });

  it('given a bad duration when loaded then the issue names the window field', async () => {
    const issues = await issuesOf({
      ...minimal,
      targets: [{ ...minimal.targets[0], window: { idleTimeout: '5 seconds' } }],
    });
    expect(issues).toEqual([
      { path: 'targets[0].window.idleTimeout', message: expect.stringContaining('duration') },
    ]);
  });

  it('given an idle timeout longer than the window maximum when loaded then it is refused', async () => {
    const issues = await issuesOf({
      ...minimal,
      targets: [{ ...minimal.targets[0], window: { idleTimeout: '2m', maxDuration: '1m' } }],
    });
    expect(issues).toEqual([
      { path: 'targets[0].window.idleTimeout', message: 'must not be longer than maxDuration' },
    ]);
  });

  it('given a bad byte quantity when loaded then the issue names the limit', async () => {
    const issues = await issuesOf({ ...minimal, limits: { branchBufferBytes: '8MB' } });
    expect(issues).toEqual([{ path: 'limits.branchBufferBytes', message: expect.stringContaining('8Mi') }]);
  });

  it('given snapshot part limits above what keeps branch state under 1 MB when loaded then they are refused', async () => {
    const issues = await issuesOf({ ...minimal, limits: { snapshotParts: 1001, branchSnapshotParts: 2001 } });
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'limits.branchSnapshotParts',
      'limits.snapshotParts',
    ]);
  });

  it('given a branch parts limit a snapshot at its limit would not fit when loaded then it is refused', async () => {
    const issues = await issuesOf({ ...minimal, limits: { snapshotParts: 10, branchSnapshotParts: 17 } });
    expect(issues).toEqual([
      { path: 'limits.branchSnapshotParts', message: 'must be at least snapshotParts + 8' },
    ]);
  });

  it.each(['../escape', '/abs/path', 'a//b', 'clusters/../..', 'a/.git/b'])(
    'given the target path %p when loaded then it is refused as outside the target',
    async (path) => {
      const issues = await issuesOf({ ...minimal, targets: [{ ...minimal.targets[0], path }] });
      expect(issues.map((issue) => issue.path)).toEqual(['targets[0].path']);
    },
  );

  it('given a target naming an unknown repository when loaded then the issue points at it', async () => {
    const issues = await issuesOf({ ...minimal, targets: [{ ...minimal.targets[0], repository: 'other' }] });
    expect(issues).toEqual([
      { path: 'targets[0].repository', message: 'names no repository (known: platform)' },
    ]);
  });

  it('given a source allowed an unknown target when loaded then the issue points at the list entry', async () => {
    const issues = await issuesOf({
      ...minimal,
      sources: [{ name: 'a', tokenEnv: 'A', targets: ['prod', 'staging'] }],
    });
    expect(issues).toEqual([
      { path: 'sources[0].targets[1]', message: 'names no target (known: prod, or "*")' },
    ]);
  });

  it('given two targets on one branch with nested paths when loaded then the second is refused', async () => {
    const issues = await issuesOf({
      ...minimal,
      targets: [
        { name: 'prod', repository: 'platform', branch: 'main', path: 'clusters' },
        { name: 'edge', repository: 'platform', branch: 'main', path: 'clusters/edge' },
        { name: 'dev', repository: 'platform', branch: 'dev', path: 'clusters' },
      ],
    });
    expect(issues).toEqual([
      { path: 'targets[1].path', message: 'overlaps target "prod" on the same branch' },
    ]);
  });

  it('given two repository names for one remote when their targets overlap then the overlap is still refused', async () => {
    const issues = await issuesOf({
      repositories: [
        { name: 'platform', url: 'https://git.example.com/org/state.git' },
        { name: 'alias', url: 'https://git.example.com/org/state.git' },
      ],
      targets: [
        { name: 'prod', repository: 'platform', branch: 'main', path: '.' },
        { name: 'edge', repository: 'alias', branch: 'main', path: 'edge' },
      ],
    });
    expect(issues).toEqual([
      { path: 'targets[1].path', message: 'overlaps target "prod" on the same branch' },
    ]);
  });

  describe('a target that proposes (publish: propose)', () => {
    const onGitHub = {
      repositories: [
        {
          name: 'platform',
          url: 'https://github.com/org/state.git',
          auth: { username: 'x-access-token', tokenEnv: 'GIT_TOKEN' },
        },
      ],
    };

    it('given publish: propose when loaded then it writes kubescribe/<target>, proposed into branch, and polls every 30 s', async () => {
      const { config } = await loadContent({
        ...onGitHub,
        targets: [{ name: 'prod', repository: 'platform', branch: 'main', publish: 'propose' }],
      });
      expect(config.targets[0]).toMatchObject({ branch: 'main', publish: 'propose' });
      expect(writeBranchOf(config.targets[0]!)).toBe('kubescribe/prod');
      expect(config.limits.pullRequestPollMs).toBe(30_000);
    });

    it('given two targets proposing from one branch with nested paths when loaded then the second is refused, and one proposing beside one pushing to the base is not', async () => {
      const issues = await issuesOf({
        ...onGitHub,
        targets: [
          {
            name: 'prod',
            repository: 'platform',
            branch: 'main',
            path: 'a',
            publish: 'propose',
            proposeBranch: 'review',
          },
          {
            name: 'edge',
            repository: 'platform',
            branch: 'main',
            path: 'a/b',
            publish: 'propose',
            proposeBranch: 'review',
          },
          { name: 'dev', repository: 'platform', branch: 'main', path: 'a' },
        ],
      });
      expect(issues).toEqual([
        { path: 'targets[1].path', message: 'overlaps target "prod" on the same branch' },
      ]);
    });

    it.each([
      [{ proposeBranch: 'main' }, 'targets[0].proposeBranch', 'must differ from branch'],
      [{ proposeBranch: 'bad..name' }, 'targets[0].proposeBranch', 'must be a valid Git branch name'],
      [{ parentBranch: 'release' }, 'targets[0].parentBranch', 'does not apply with publish: propose'],
      [
        { publish: 'push', proposeBranch: 'review' },
        'targets[0].proposeBranch',
        'applies with publish: propose only',
      ],
      [{ publish: 'pull' }, 'targets[0].publish', 'Invalid option'],
    ])('given %j when loaded then %s is refused', async (fields, path, message) => {
      const issues = await issuesOf({
        ...onGitHub,
        targets: [{ name: 'prod', repository: 'platform', branch: 'main', publish: 'propose', ...fields }],
      });
      expect(issues).toEqual([expect.objectContaining({ path, message: expect.stringContaining(message) })]);
    });

    it.each([
      ['a local path', { url: '/srv/state.git' }, 'is a local path'],
      ['no auth', { url: 'https://github.com/org/state.git', auth: undefined }, 'has no auth'],
      ['an unknown host', { url: 'https://git.example.com/org/state.git' }, "set the target's forge.kind"],
      [
        'a GitLab URL with no group',
        { url: 'https://git.example.com/state.git', forge: { kind: 'gitlab' } },
        '{group}/{project}',
      ],
    ])(
      'given a repository with %s when a target proposes then publish is refused, saying why',
      async (_, repository, message) => {
        const issues = await issuesOf({
          repositories: [{ ...onGitHub.repositories[0], ...repository }],
          targets: [{ name: 'prod', repository: 'platform', branch: 'main', publish: 'propose' }],
        });
        expect(issues).toEqual([{ path: 'targets[0].publish', message: expect.stringContaining(message) }]);
      },
    );

    it('given a repository on its own host with forge.kind and apiUrl when a target proposes then it loads', async () => {
      const { config } = await loadContent({
        repositories: [
          {
            ...onGitHub.repositories[0],
            url: 'https://git.example.com/group/state.git',
            forge: { kind: 'gitlab', apiUrl: 'https://git.example.com/api/v4' },
          },
        ],
        targets: [{ name: 'prod', repository: 'platform', branch: 'main', publish: 'propose' }],
      });
      expect(config.repositories[0]?.forge).toEqual({
        kind: 'gitlab',
        apiUrl: 'https://git.example.com/api/v4',
      });
    });

    it('given a forge apiUrl in clear to another host when loaded then it is refused', async () => {
      const issues = await issuesOf({
        repositories: [
          { ...onGitHub.repositories[0], forge: { kind: 'github', apiUrl: 'http://api.example.com' } },
        ],
        targets: [{ name: 'prod', repository: 'platform', branch: 'main' }],
      });
      expect(issues).toEqual([
        { path: 'repositories[0].forge.apiUrl', message: expect.stringContaining('must be an https:// URL') },
      ]);
    });

    it('given a poll interval under a second when loaded then it is refused', async () => {
      const issues = await issuesOf({ ...minimal, limits: { pullRequestPoll: '500ms' } });
      expect(issues).toEqual([{ path: 'limits.pullRequestPoll', message: 'must be at least 1s' }]);
    });
  });

  it('given duplicate target names when loaded then the duplicate is refused', async () => {
    const issues = await issuesOf({
      ...minimal,
      targets: [
        { name: 'prod', repository: 'platform', branch: 'main', path: 'a' },
        { name: 'prod', repository: 'platform', branch: 'main', path: 'b' },
      ],
    });
    expect(issues).toEqual([{ path: 'targets[1].name', message: 'duplicates the name "prod"' }]);
  });

  it('given auth disabled on a public host when loaded then it is refused', async () => {
    const issues = await issuesOf({ ...minimal, server: { host: '0.0.0.0', auth: 'disabled' } });
    expect(issues).toEqual([{ path: 'server.auth', message: expect.stringContaining('loopback') }]);
  });

  it.each(['127.0.0.1', '::1', 'localhost'])(
    'given auth disabled on %p when loaded then it is allowed',
    async (host) => {
      const { config } = await loadContent({ ...minimal, server: { host, auth: 'disabled' } }, {});
      expect(config.server).toMatchObject({ host, auth: 'disabled' });
    },
  );

  it('given credentials inside a repository URL when loaded then it is refused without echoing them', async () => {
    const error = await loadContent({
      ...minimal,
      repositories: [{ name: 'platform', url: 'https://git:hunter2@git.example.com/r.git' }],
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigInvalid);
    expect((error as ConfigInvalid).data.issues).toEqual([
      { path: 'repositories[0].url', message: expect.stringContaining('tokenEnv') },
    ]);
    expect(JSON.stringify(error)).not.toContain('hunter2');
  });

  it('given a token for a plain http remote on another host when loaded then the url is refused', async () => {
    const issues = await issuesOf({
      ...minimal,
      repositories: [
        { name: 'platform', url: 'http://git.example.com/r.git', auth: { tokenEnv: 'GIT_TOKEN' } },
      ],
    });
    expect(issues).toEqual([{ path: 'repositories[0].url', message: expect.stringContaining('https://') }]);
  });

  it.each([
    'http://127.0.0.1:8080/r.git',
    'http://localhost/r.git',
    'http://[::1]/r.git',
    'https://git.example.com/r.git',
  ])('given a token for %p when loaded then it is allowed', async (url) => {
    const { config } = await loadContent({
      ...minimal,
      repositories: [{ name: 'platform', url, auth: { tokenEnv: 'GIT_TOKEN' } }],
    });
    expect(config.repositories[0]!.url).toBe(url);
  });

  it('given a plain http remote on another host without a token when loaded then it is allowed', async () => {
    const { config } = await loadContent({
      ...minimal,
      repositories: [{ name: 'platform', url: 'http://git.example.com/r.git' }],
    });
    expect(config.repositories[0]!.url).toBe('http://git.example.com/r.git');
  });

  it.each(['.GIT', 'clusters/.Git/hooks', '.git'])(
    'given target path %p when loaded then it is refused, as Git would refuse it at publication',
    async (path) => {
      const issues = await issuesOf({ ...minimal, targets: [{ ...minimal.targets[0], path }] });
      expect(issues).toEqual([{ path: 'targets[0].path', message: expect.stringContaining('.git') }]);
    },
  );

  it('given an ssh remote when loaded then it is refused as unsupported', async () => {
    const issues = await issuesOf({
      ...minimal,
      repositories: [{ name: 'platform', url: 'ssh://git@host/r.git' }],
    });
    expect(issues.map((issue) => issue.path)).toContain('repositories[0].url');
  });

  it('given a branch name Git would refuse when loaded then it is refused', async () => {
    const issues = await issuesOf({ ...minimal, targets: [{ ...minimal.targets[0], branch: 'feature..x' }] });
    expect(issues).toEqual([{ path: 'targets[0].branch', message: 'must be a valid Git branch name' }]);
  });
});

describe('secrets named by the configuration', () => {
  it('given a source whose token variable is unset when loaded then start-up is refused naming the variable only', async () => {
    const error = await loadContent(
      { ...minimal, sources: [{ name: 'cluster-a', tokenEnv: 'CLUSTER_A_TOKEN', targets: ['*'] }] },
      { GIT_TOKEN: 'git-token-value' },
    ).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigSecretMissing);
    expect(error).toMatchObject({
      data: { missing: [{ variable: 'CLUSTER_A_TOKEN', usedBy: 'sources[0].tokenEnv' }] },
    });
    expect((error as Error).message).toContain('CLUSTER_A_TOKEN');
    expect(JSON.stringify(error)).not.toContain('git-token-value');
  });

  it('given a source with a kubeconfig variable when loaded then its kubeconfig is kept as a secret', async () => {
    const kubeconfig =
      'apiVersion: v1\nkind: Config\nusers: [{ name: u, user: { token: kube-token-value } }]\n';
    const loaded = await loadContent(
      {
        ...minimal,
        sources: [
          {
            name: 'cluster-a',
            tokenEnv: 'CLUSTER_A_TOKEN',
            kubeconfigEnv: 'CLUSTER_A_KUBECONFIG',
            targets: ['*'],
          },
        ],
      },
      { ...secrets, CLUSTER_A_KUBECONFIG: kubeconfig },
    );
    expect(loaded.secrets.sourceKubeconfigs['cluster-a']?.reveal()).toBe(kubeconfig);
    expect(JSON.stringify(loaded)).not.toContain('kube-token-value');
  });

  it('given a kubeconfig variable that is unset when loaded then start-up is refused naming it', async () => {
    const error = await loadContent({
      ...minimal,
      sources: [
        {
          name: 'cluster-a',
          tokenEnv: 'CLUSTER_A_TOKEN',
          kubeconfigEnv: 'CLUSTER_A_KUBECONFIG',
          targets: ['*'],
        },
      ],
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: ConfigSecretMissing.code,
      data: { missing: [{ variable: 'CLUSTER_A_KUBECONFIG', usedBy: 'sources[0].kubeconfigEnv' }] },
    });
  });

  it('given a repository token variable that is unset when loaded then the error points at the repository auth', async () => {
    const error = await loadConfig({
      env: { CLUSTER_A_TOKEN: 'x', KUBESCRIBE_CONFIG: 'full.yaml' },
      readFile: readText,
      cwd: fixtures,
    }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      code: ConfigSecretMissing.code,
      data: { missing: [{ variable: 'GIT_TOKEN', usedBy: 'repositories[0].auth.tokenEnv' }] },
    });
  });

  it('given resolved tokens when the loaded configuration is logged then no token value appears', async () => {
    const loaded = await loadConfig({
      env: { ...secrets, KUBESCRIBE_CONFIG: join(fixtures, 'full.yaml') },
      readFile: readText,
    });
    const printed = `${JSON.stringify(loaded)} ${inspect(loaded, { depth: 10 })} ${String(loaded.secrets.sourceTokens['cluster-a'])}`;
    expect(printed).not.toContain('git-token-value');
    expect(printed).not.toContain('cluster-a-token-value');
    expect(printed).toContain('[redacted]');
  });
});

describe('what start-up says about a mistake', () => {
  it.each([
    ['git@github.com:org/state.git', 'https://github.com/org/state.git'],
    ['ssh://git@github.com/org/state.git', 'https://github.com/org/state.git'],
    ['ssh://git@git.example.com:2222/team/state.git', 'https://git.example.com/team/state.git'],
  ])(
    'given the SSH remote %p when loaded then it is refused with the https URL to use',
    async (url, https) => {
      const issues = await issuesOf({ ...minimal, repositories: [{ name: 'platform', url }] });
      expect(issues).toEqual([
        {
          path: 'repositories[0].url',
          message: `is an SSH address, which kubescribe cannot push to: use the https URL (${https}) with auth.tokenEnv`,
        },
      ]);
    },
  );

  it('given several mistakes when loaded then the message lists one a line', async () => {
    const error = await loadContent({
      ...minimal,
      targets: [{ ...minimal.targets[0], branch: 'a..b', prune: 'Sometimes' }],
    }).catch((thrown: unknown) => thrown);
    const lines = (error as Error).message.split('\n');
    expect(lines[0]).toBe('configuration from KUBESCRIBE_CONFIG_CONTENT is invalid:');
    expect(lines.slice(1)).toEqual([
      '  targets[0].branch: must be a valid Git branch name',
      expect.stringMatching(/^ {2}targets\[0\]\.prune: /),
    ]);
  });

  it('given a YAML syntax error when loaded then the issue says the line and column', async () => {
    const text = 'repositories:\n  - name: platform\n    url: : https://x\n';
    expect(await issuesOf(text)).toEqual([
      {
        path: '',
        message:
          'is not valid YAML or JSON: Nested mappings are not allowed in compact mappings (line 3, column 10)',
      },
    ]);
  });

  it('given a duplicate key when loaded then the issue says where the second one is', async () => {
    const text = 'repositories: []\ntargets: []\nrepositories: []\n';
    expect(await issuesOf(text)).toEqual([
      { path: '', message: 'is not valid YAML or JSON: Map keys must be unique (line 3, column 1)' },
    ]);
  });

  it('given a window duration written as a bare YAML number when loaded then the hint says to write 60s', async () => {
    const text = [
      'repositories: [{ name: platform, url: "https://git.example.com/org/state.git" }]',
      'targets:',
      '  - { name: prod, repository: platform, branch: main, window: { maxDuration: 60 } }',
    ].join('\n');
    expect(await issuesOf(text)).toEqual([
      {
        path: 'targets[0].window.maxDuration',
        message: 'has no unit: write "60s" for seconds (or "60ms", "60m")',
      },
    ]);
  });

  it('given a target naming an unknown repository when loaded then the known names are listed', async () => {
    const issues = await issuesOf({
      repositories: [...minimal.repositories, { name: 'archive', url: 'https://git.example.com/a.git' }],
      targets: [{ name: 'prod', repository: 'platfrom', branch: 'main' }],
    });
    expect(issues).toEqual([
      { path: 'targets[0].repository', message: 'names no repository (known: platform, archive)' },
    ]);
  });

  it('given several secret variables unset when loaded then every one is reported at once', async () => {
    const error = await loadConfig({
      env: { KUBESCRIBE_CONFIG: 'full.yaml', KUBESCRIBE_PAYLOADS: 'blob-connection:AZURITE' },
      readFile: readText,
      cwd: fixtures,
    }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigSecretMissing);
    expect((error as ConfigSecretMissing).data.missing).toEqual([
      { variable: 'GIT_TOKEN', usedBy: 'repositories[0].auth.tokenEnv' },
      { variable: 'CLUSTER_A_TOKEN', usedBy: 'sources[0].tokenEnv' },
      { variable: 'AZURITE', usedBy: 'KUBESCRIBE_PAYLOADS' },
    ]);
    expect((error as Error).message.split('\n')).toEqual([
      'environment variables not set or empty:',
      '  GIT_TOKEN (named by repositories[0].auth.tokenEnv)',
      '  CLUSTER_A_TOKEN (named by sources[0].tokenEnv)',
      '  AZURITE (named by KUBESCRIBE_PAYLOADS)',
    ]);
  });

  it('given createIfMissing on a remote URL when loaded then it is refused', async () => {
    const issues = await issuesOf({
      ...minimal,
      repositories: [{ ...minimal.repositories[0], createIfMissing: true }],
    });
    expect(issues).toEqual([
      { path: 'repositories[0].createIfMissing', message: expect.stringContaining('local path only') },
    ]);
  });

  it('given no authors when loaded then no rules and the default e-mail domain', async () => {
    expect((await loadContent(minimal)).config.authors).toEqual({
      emailDomain: 'noreply.cluster.local',
      rules: [],
    });
  });

  it.each([
    [
      { rules: [{ usernamePattern: 'oidc:(', email: 'x@acme.com' }] },
      'authors.rules[0].usernamePattern',
      'is not a regular expression',
    ],
    [{ rules: [{ username: 'jane' }] }, 'authors.rules[0]', 'must give a name, an email or both'],
    [{ rules: [{ username: 'jane', email: 'jane' }] }, 'authors.rules[0].email', 'must be an e-mail address'],
    [{ rules: [{ group: 'ops', name: 'Ops <x>' }] }, 'authors.rules[0].name', 'must not contain <, >'],
    [{ emailDomain: 'not a domain' }, 'authors.emailDomain', 'must be a domain name'],
  ])('given authors %j when loaded then the issue names %s', async (authors, path, message) => {
    const issues = await issuesOf({ ...minimal, authors });
    expect(issues).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it.each([['clusters/con'], ['clusters/Prod'], ['clusters/prod:east'], [`clusters/${'p'.repeat(60)}`]])(
    'given paths: portable with the target path %j when loaded then the path is refused',
    async (path) => {
      const issues = await issuesOf({
        ...minimal,
        targets: [{ ...minimal.targets[0], path, paths: 'portable' }],
      });
      expect(issues).toEqual([
        {
          path: 'targets[0].path',
          message: expect.stringContaining('with paths: portable, must be at most 52 characters'),
        },
      ]);
    },
  );

  it('given paths: portable on a portable target path when loaded then the target writes portable paths', async () => {
    const loaded = await loadContent({
      ...minimal,
      targets: [{ ...minimal.targets[0], path: 'clusters/prod-east', paths: 'portable' }],
    });
    expect(loaded.config.targets[0]).toMatchObject({ path: 'clusters/prod-east', paths: 'portable' });
  });
});

describe('an eventHub source (an AKS audit log through Event Hubs)', () => {
  it('given only a hub when loaded then the connection, consumer group and category default, and no token is read', async () => {
    const { config, secrets: loadedSecrets } = await loadContent(
      {
        ...minimal,
        sources: [{ name: 'aks-prod', kind: 'eventHub', eventHub: { hub: 'aks-audit' }, targets: ['prod'] }],
      },
      {},
    );
    expect(config.sources).toEqual([
      {
        name: 'aks-prod',
        kind: 'eventHub',
        eventHub: {
          connection: 'KUBESCRIBE_EVENTHUB',
          hub: 'aks-audit',
          consumerGroup: '$Default',
          categories: ['kube-audit-admin'],
        },
        targets: ['prod'],
      },
    ]);
    expect(loadedSecrets.sourceTokens).toEqual({});
  });

  it('given a source without a kind when loaded then it is a webhook source with its token', async () => {
    const { config } = await loadContent({
      ...minimal,
      sources: [{ name: 'cluster-a', tokenEnv: 'CLUSTER_A_TOKEN', targets: ['*'] }],
    });
    expect(config.sources[0]).toMatchObject({ kind: 'webhook', tokenEnv: 'CLUSTER_A_TOKEN' });
  });

  it('given a token, an unknown category, a wildcard target or a second eventHub source when loaded then each is named', async () => {
    const hub = { name: 'aks-a', kind: 'eventHub', eventHub: { hub: 'aks-audit' }, targets: ['prod'] };
    const issues = await issuesOf({
      ...minimal,
      sources: [
        { ...hub, tokenEnv: 'A' },
        { ...hub, name: 'aks-b', eventHub: { hub: 'x', categories: ['guard'] }, targets: ['*'] },
        { ...hub, name: 'aks-c' },
        { ...hub, name: 'aks-d', eventHub: { hub: 'bad name' } },
      ],
    });
    expect(issues.map(({ path }) => path)).toEqual([
      'sources[0]',
      'sources[1].eventHub.categories[0]',
      'sources[1].targets[0]',
      'sources[3].eventHub.hub',
    ]);
    const second = await issuesOf({ ...minimal, sources: [hub, { ...hub, name: 'aks-b' }] });
    expect(second).toEqual([{ path: 'sources[1].kind', message: 'only one eventHub source is supported' }]);
  });
});

// The pull-request activity against an in-memory host: it keeps one pull request per proposed
// branch through lost replies, never reopens an ended one, and answers every failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PullRequestInput, runPullRequest } from '../../../../shared/app/activities/pull-request';
import { type AppRuntime, createAppRuntime } from '../../../../shared/app/runtime/app-runtime';
import { branchKeyFor } from '../../../../shared/app/runtime/branch-key';
import { loadConfig } from '../../../../shared/config';
import { GitHttpRefused } from '../../../../shared/git/errors';
import type {
  Forge,
  OpenForgeInput,
  PullRequest,
  PullRequestText,
} from '../../../../shared/git/forges/forge';
import { openPayloadStore } from '../../../../shared/payloads';

const URL_ = 'https://github.com/org/state.git';
const TOKEN = 'ghp_secret-token-value-1234567890';
let root: string;
let runtime: AppRuntime;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ks-pull-request-'));
  const config = {
    repositories: [{ name: 'state', url: URL_, auth: { username: 'x-access-token', tokenEnv: 'GIT_TOKEN' } }],
    targets: [{ name: 'prod', repository: 'state', branch: 'main', path: '.', publish: 'propose' }],
    server: { auth: 'disabled' },
  };
  const loaded = await loadConfig({
    env: {
      KUBESCRIBE_CONFIG_CONTENT: JSON.stringify(config),
      KUBESCRIBE_DATA: join(root, 'data'),
      GIT_TOKEN: TOKEN,
    },
    readFile: (path) => readFile(path, 'utf8'),
  });
  runtime = createAppRuntime({
    loaded,
    payloads: await openPayloadStore({ setting: loaded.payloads }),
    nowMs: Date.now,
  });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * A host's pull requests as GitHub keeps them (docs.github.com, "REST API endpoints for pull
 * requests"): numbered from 1, one open per head and base (a second `open` is refused, 422), a
 * merged or closed one stays readable. `loseReplyOf` applies the next such call and then throws,
 * as a reply lost on the network.
 */
class MemoryForge implements Forge {
  readonly kind = 'github' as const;
  readonly pulls: (PullRequest & PullRequestText)[] = [];
  readonly calls: string[] = [];
  loseReplyOf?: 'open';
  seen?: OpenForgeInput;

  private reply<T>(value: T, call?: 'open'): T {
    if (call === undefined || this.loseReplyOf !== call) return structuredClone(value);
    this.loseReplyOf = undefined;
    throw new Error('socket hang up');
  }
  async findOpen(head: string, base: string) {
    this.calls.push('findOpen');
    return this.reply(this.pulls.find((p) => p.head === head && p.base === base && p.state === 'open'));
  }
  async open(head: string, base: string, text: PullRequestText) {
    this.calls.push('open');
    if (this.pulls.some((p) => p.head === head && p.base === base && p.state === 'open'))
      throw new Error('HTTP 422: A pull request already exists');
    const number = this.pulls.length + 1;
    const pull = {
      number,
      url: `https://github.com/org/state/pull/${number}`,
      state: 'open' as const,
      head,
      base,
      ...text,
    };
    this.pulls.push(pull);
    return this.reply(pull, 'open');
  }
  async update(number: number, text: PullRequestText) {
    this.calls.push('update');
    const pull = this.pulls[number - 1]!;
    Object.assign(pull, text);
    return this.reply(pull);
  }
  async read(number: number) {
    this.calls.push('read');
    const pull = this.pulls[number - 1];
    if (!pull) throw new Error('HTTP 404: Not Found');
    return this.reply(pull);
  }
}

function input(effect: Partial<PullRequestInput['effect']> = {}): PullRequestInput {
  return {
    branchKey: branchKeyFor(URL_, 'kubescribe/prod').key,
    repository: 'state',
    branch: 'kubescribe/prod',
    effect: {
      type: 'pull-request',
      request: 'pull-request-1',
      action: 'sync',
      base: 'main',
      text: { title: 'kubescribe: changes of prod', description: '- `a.yaml` by Alice' },
      ...effect,
    },
  };
}

describe('the pull-request activity', () => {
  it("opens the branch's pull request with the repository's own credentials, and updates the same one after", async () => {
    const forge = new MemoryForge();
    const open = (seen: OpenForgeInput) => {
      forge.seen = seen;
      return forge;
    };
    const first = await runPullRequest(runtime, input(), open);
    expect(first).toEqual({
      outcome: 'open',
      pullRequest: { number: 1, url: 'https://github.com/org/state/pull/1' },
    });
    expect(forge.pulls[0]).toMatchObject({
      head: 'kubescribe/prod',
      base: 'main',
      title: 'kubescribe: changes of prod',
    });
    const auth = await forge.seen?.credentials.current({ signal: new AbortController().signal });
    expect(auth).toEqual({ username: 'x-access-token', token: TOKEN });

    const text = {
      title: 'kubescribe: changes of prod',
      description: '- `a.yaml` by Alice\n- `b.yaml` by Bob',
    };
    const second = await runPullRequest(runtime, input({ pullRequest: 1, text }), open);
    expect(second).toMatchObject({ outcome: 'open', pullRequest: { number: 1 } });
    expect(forge.pulls).toHaveLength(1);
    expect(forge.pulls[0]?.description).toContain('by Bob');
  });

  it('a lost reply to the opening is answered failed, and the retry finds the pull request it opened instead of opening another', async () => {
    const forge = new MemoryForge();
    forge.loseReplyOf = 'open';
    const lost = await runPullRequest(runtime, input(), () => forge);
    expect(lost).toEqual({ outcome: 'failed', kind: 'transient', cause: { message: 'socket hang up' } });
    const retried = await runPullRequest(runtime, input(), () => forge);
    expect(retried).toMatchObject({ outcome: 'open', pullRequest: { number: 1 } });
    expect(forge.pulls).toHaveLength(1);
    expect(forge.calls).toEqual(['findOpen', 'open', 'findOpen', 'update']);
  });

  it('a known pull request merged meanwhile is answered merged with its merge commit, never updated or reopened', async () => {
    const forge = new MemoryForge();
    await runPullRequest(runtime, input(), () => forge);
    Object.assign(forge.pulls[0]!, { state: 'merged', mergeCommit: 'b'.repeat(40) });
    const answer = await runPullRequest(runtime, input({ pullRequest: 1 }), () => forge);
    expect(answer).toEqual({
      outcome: 'merged',
      pullRequest: { number: 1, url: 'https://github.com/org/state/pull/1', mergeCommit: 'b'.repeat(40) },
    });
    expect(forge.calls.slice(-1)).toEqual(['read']);
    expect(forge.pulls).toHaveLength(1);
  });

  it('reads a pull request to see it closed', async () => {
    const forge = new MemoryForge();
    await runPullRequest(runtime, input(), () => forge);
    forge.pulls[0]!.state = 'closed';
    const answer = await runPullRequest(runtime, input({ action: 'read', pullRequest: 1 }), () => forge);
    expect(answer).toMatchObject({ outcome: 'closed', pullRequest: { number: 1 } });
  });

  it("a host's refusal is answered failed, its message scrubbed of the token", async () => {
    let seen: OpenForgeInput | undefined;
    const refusing: Forge = {
      kind: 'github',
      findOpen: async () => {
        // a host that echoes the credentials it was sent
        const auth = await seen?.credentials.current({ signal: new AbortController().signal });
        throw new Error(`HTTP 401: Bad credentials ${JSON.stringify(auth)}`);
      },
      open: jest.fn(),
      update: jest.fn(),
      read: jest.fn(),
    };
    const answer = await runPullRequest(runtime, input(), (given) => {
      seen = given;
      return refusing;
    });
    expect(answer.outcome).toBe('failed');
    expect(JSON.stringify(answer)).toContain('HTTP 401: Bad credentials');
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
  });

  it('a merge commit the host reports in another shape is a failure, not a recorded commit', async () => {
    const forge = new MemoryForge();
    await runPullRequest(runtime, input(), () => forge);
    Object.assign(forge.pulls[0]!, { state: 'merged', mergeCommit: 'not-a-sha' });
    const answer = await runPullRequest(runtime, input({ action: 'read', pullRequest: 1 }), () => forge);
    expect(answer).toMatchObject({ outcome: 'failed', kind: 'rejected' });
  });

  // each as forgeFailure classifies the host's HTTP answer (shared/git/forges/forge-errors.ts)
  it.each([
    {
      refusal: { outcome: 'authFailed', status: 401, cause: 'HTTP 401: Bad credentials' },
      answer: { kind: 'credentialsRefused' },
    },
    {
      refusal: { outcome: 'transient', status: 429, cause: 'HTTP 429', retryAfterMs: 60_000 },
      answer: { kind: 'transient', retryAfterMs: 60_000 },
    },
    {
      refusal: { outcome: 'rejected', status: 422, cause: 'HTTP 422: Validation Failed' },
      answer: { kind: 'rejected' },
    },
  ] as const)(
    'a host answering $refusal.status is answered failed as $answer.kind, with its Retry-After',
    async ({ refusal, answer }) => {
      const refusing: Forge = {
        kind: 'github',
        findOpen: async () => {
          throw new GitHttpRefused(refusal);
        },
        open: jest.fn(),
        update: jest.fn(),
        read: jest.fn(),
      };
      const result = await runPullRequest(runtime, input(), () => refusing);
      expect(result).toEqual({ outcome: 'failed', cause: { message: refusal.cause }, ...answer });
    },
  );
});

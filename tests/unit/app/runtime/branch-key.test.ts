import { branchKeyFor, normalizeRepositoryUrl } from '../../../../shared/app/runtime/branch-key';
import {
  driverInstanceId,
  MAX_INSTANCE_ID_CHARS,
  withdrawalInstanceId,
} from '../../../../shared/app/runtime/durable-names';

describe('the branch key', () => {
  it('is the same for two spellings of one remote', () => {
    const a = branchKeyFor('https://git:token@Git.Example.com/org/state.git', 'main');
    const b = branchKeyFor('https://git.example.com/org/state/', 'main');
    expect(a.key).toBe(b.key);
    expect(a.repository).toBe('https://git.example.com/org/state');
  });

  it('differs per branch and per repository', () => {
    const main = branchKeyFor('https://git.example.com/org/state.git', 'main');
    expect(branchKeyFor('https://git.example.com/org/state.git', 'prod').key).not.toBe(main.key);
    expect(branchKeyFor('https://git.example.com/org/other.git', 'main').key).not.toBe(main.key);
  });

  it('never carries credentials', () => {
    expect(normalizeRepositoryUrl('https://user:s3cret@host/r.git')).not.toContain('s3cret');
  });

  it('keeps a local repository path as a path', () => {
    expect(normalizeRepositoryUrl('/var/lib/kubescribe/state.git/')).toBe('/var/lib/kubescribe/state');
  });

  it('is safe inside a durable instance id', () => {
    const id = driverInstanceId(branchKeyFor('https://git.example.com/a/b.git', 'feature/x').key);
    expect(id).toMatch(/^[A-Za-z0-9-]+$/);
  });
});

describe('instance ids', () => {
  const branch = branchKeyFor(
    `https://git.example.com/${'o'.repeat(300)}/state.git`,
    `feature/${'x'.repeat(240)}`,
  );

  it('fit every backend, whatever the save id', () => {
    const saveId = 'a:'.repeat(128);
    for (const id of [
      driverInstanceId(branch.key),
      withdrawalInstanceId(branch.key, saveId, '2026-01-01T00:00:00.000Z'),
    ]) {
      expect(id.length).toBeLessThanOrEqual(MAX_INSTANCE_ID_CHARS);
      expect(id).toMatch(/^[A-Za-z0-9-]+$/);
    }
  });

  it('differ for two saves whose ids differ only in characters an id cannot hold', () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(withdrawalInstanceId(branch.key, 'a:b', at)).not.toBe(withdrawalInstanceId(branch.key, 'a.b', at));
  });
});

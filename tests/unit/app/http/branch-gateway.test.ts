import type { BranchEntityState } from '../../../../shared/app/entity/branch-operations';
import { cachedBranchReader } from '../../../../shared/app/http/branch-gateway';

describe('reading branch state for admission', () => {
  it('reads a branch at most once per second, per branch', async () => {
    let nowMs = 0;
    const reads: string[] = [];
    const read = async (key: string) => {
      reads.push(key);
      return undefined as BranchEntityState | undefined;
    };
    const cached = cachedBranchReader({ nowMs: () => nowMs });
    await cached('a', read);
    await cached('a', read);
    await cached('b', read);
    nowMs = 999;
    await cached('a', read);
    nowMs = 1000;
    await cached('a', read);
    expect(reads).toEqual(['a', 'b', 'a']);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const cached = cachedBranchReader({ nowMs: () => 0 });
    const read = async () => {
      if (fail) throw new Error('entity store unreachable');
      return undefined;
    };
    await expect(cached('a', read)).rejects.toThrow('unreachable');
    fail = false;
    await expect(cached('a', read)).resolves.toBeUndefined();
  });
});

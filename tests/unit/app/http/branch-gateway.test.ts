import type { BranchEntityState } from '../../../../shared/app/entity/branch-operations';
import { cachedBranchReader, coalescedWakes } from '../../../../shared/app/http/branch-gateway';

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

  it('reads a branch afresh once told to forget it (after a wake), and only that branch', async () => {
    const reads: string[] = [];
    const read = async (key: string) => {
      reads.push(key);
      return undefined as BranchEntityState | undefined;
    };
    const cached = cachedBranchReader({ nowMs: () => 0 });
    await cached('a', read);
    await cached('b', read);
    cached.forget('a');
    await cached('a', read);
    await cached('b', read);
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

describe('waking a branch driver for concurrent admits', () => {
  /** A wake whose answer the test gives: `sent` lists each wake as it goes out. */
  function wakes() {
    const sent: { branch: string; answer: (error?: Error) => void }[] = [];
    const send = (branch: string) => () =>
      new Promise<void>((resolve, reject) => {
        sent.push({ branch, answer: (error) => (error ? reject(error) : resolve()) });
      });
    return { sent, send };
  }
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  /** Whether the promise has settled by now. */
  async function isDone(promise: Promise<unknown>): Promise<boolean> {
    let done = false;
    promise.then(
      () => (done = true),
      () => (done = true),
    );
    await settled();
    return done;
  }

  it('sends a lone wake at once', async () => {
    const { sent, send } = wakes();
    const wake = coalescedWakes();
    const first = wake('a', send('a'));
    expect(sent).toHaveLength(1);
    sent[0]!.answer();
    await first;
    const second = wake('a', send('a'));
    expect(sent).toHaveLength(2);
    sent[1]!.answer();
    await second;
  });

  it('answers the callers who asked while a wake was out with one wake sent after it, not the one already out', async () => {
    const { sent, send } = wakes();
    const wake = coalescedWakes();
    const first = wake('a', send('a'));
    const later = [wake('a', send('a')), wake('a', send('a')), wake('a', send('a'))];
    const other = wake('b', send('b'));
    expect(sent.map((s) => s.branch)).toEqual(['a', 'b']);
    sent[0]!.answer();
    await first;
    await settled();
    // the wake already out may have left before their signals: they wait for the next, sent now
    expect(sent.map((s) => s.branch)).toEqual(['a', 'b', 'a']);
    expect(await isDone(Promise.race(later))).toBe(false);
    sent[2]!.answer();
    await Promise.all(later);
    sent[1]!.answer();
    await other;
    expect(sent).toHaveLength(3);
  });

  it('sends the next wake when the one out fails, and fails only the callers of the failed one', async () => {
    const { sent, send } = wakes();
    const wake = coalescedWakes();
    const first = wake('a', send('a'));
    const second = wake('a', send('a'));
    sent[0]!.answer(new Error('the host is unreachable'));
    await expect(first).rejects.toThrow('unreachable');
    await settled();
    expect(sent).toHaveLength(2);
    sent[1]!.answer();
    await expect(second).resolves.toBeUndefined();
  });
});

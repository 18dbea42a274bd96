import { createProgress } from '../../../shared/forwarder/progress';

describe('the snapshot progress', () => {
  it('redraws a bar on a terminal', () => {
    const written: string[] = [];
    const progress = createProgress({
      stream: { isTTY: true, write: (t: string) => written.push(t) },
      log: () => {},
    });
    progress.advanced('apps/v1/deployments@*', 500, 1000);
    progress.done('apps/v1/deployments@*', 1000);
    expect(written[0]).toBe(
      `\rapps/v1/deployments@* [${'#'.repeat(15)}${'.'.repeat(15)}] 500/1000 objects\x1b[K`,
    );
    expect(written[1]).toBe('\rapps/v1/deployments@* done: 1000 objects\x1b[K\n');
  });

  it('logs plain lines when the output is not a terminal', () => {
    const lines: unknown[] = [];
    const written: string[] = [];
    const progress = createProgress({
      stream: { isTTY: false, write: (t: string) => written.push(t) },
      log: (event, fields) => lines.push({ event, ...fields }),
    });
    progress.advanced('core/v1/configmaps@prod', 200, undefined);
    expect(lines).toEqual([{ event: 'SnapshotPartPosted', scope: 'core/v1/configmaps@prod', posted: 200 }]);
    expect(written).toEqual([]);
  });
});

// A target's "what changed", from the branch's state: only its own commits, newest first, each
// change named as the commit body names its object, and the forge's page when the repository has one.

import { whatChanged } from '../../../../shared/app/http/what-changed';
import { initialState } from '../../../../shared/branch';
import type { RecentCommit } from '../../../../shared/branch/record-activity';

const commit = (sha: string, target: string, changes: RecentCommit['changes']): RecentCommit => ({
  commit: sha.repeat(40),
  at: '2026-12-03T10:00:00.000Z',
  target,
  author: 'alice',
  subject: `alice on ${target}`,
  changes,
  more: 0,
});

describe('what changed', () => {
  const state = {
    ...initialState(),
    recentCommits: [
      commit('a', 'prod', [{ op: 'upsert', path: 'shop/apps/deployments/web.yaml' }]),
      commit('b', 'staging', [{ op: 'delete', path: 'shop/configmaps/x.yaml' }]),
      commit('c', 'prod', [
        { op: 'delete-namespace', path: '_cluster/namespaces/shop.yaml' },
        { op: 'upsert', path: `shop/configmaps/${'n'.repeat(250)}…` },
      ]),
    ],
  };

  it("lists the target's commits newest first, with objects and the forge's page", () => {
    const view = whatChanged(
      { name: 'prod', repositoryUrl: 'https://github.com/acme/state.git' },
      state,
      '2026-12-03T10:00:30.000Z',
    );
    expect(view.recentCommits.map((c) => c.commit)).toEqual(['c'.repeat(40), 'a'.repeat(40)]);
    expect(view.recentCommits[1]).toMatchObject({
      url: `https://github.com/acme/state/commit/${'a'.repeat(40)}`,
      changes: [{ verb: 'upsert', object: 'deployments.apps shop/web' }],
    });
    // a path cut short names no object: it is shown as kept
    expect(view.recentCommits[0]!.changes).toEqual([
      { verb: 'delete-namespace', object: 'namespaces shop' },
      { verb: 'upsert', object: `shop/configmaps/${'n'.repeat(250)}…` },
    ]);
  });

  it('has no link for a repository no forge serves, and an empty hour before any change', () => {
    const view = whatChanged(
      { name: 'prod', repositoryUrl: '/srv/git/state.git' },
      state,
      '2026-12-03T10:00:30.000Z',
    );
    expect(view.recentCommits.every((c) => c.url === null)).toBe(true);
    const empty = whatChanged(
      { name: 'prod', repositoryUrl: '/srv/git/state.git' },
      undefined,
      '2026-12-03T10:00:30.000Z',
    );
    expect(empty.recentCommits).toEqual([]);
    expect(empty.perMinute.every((slot) => slot.accepted === 0 && slot.published === 0)).toBe(true);
  });
});

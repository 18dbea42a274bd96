import { readStoredState } from '../../../shared/app/entity/stored-state';
import { type BranchCommand, type BranchState, initialState, pendingWrites } from '../../../shared/branch';
import { alice, at, Branch, ofType } from './scenario';

type Change = Extract<BranchCommand, { type: 'AdmitChanges' }>['changes'][number];

const upsert = (path: string, bytes = 10): Change => ({
  path,
  operation: 'upsert',
  payloadRef: `sha256:${path}`,
  bytes,
});
const collection: Change = {
  path: 'prod/tools/configmaps',
  operation: 'delete-collection',
  payloadRef: 'sha256:c',
  bytes: 5,
};
const removal: Change = {
  path: 'prod/_cluster/namespaces/shop.yaml',
  operation: 'delete-namespace',
  bytes: 0,
};
const scale: Change = {
  path: 'prod/shop/apps/deployments/web.yaml',
  operation: 'set-replicas',
  payloadRef: 'sha256:r',
  bytes: 3,
};

function admitAll(seconds: number, changes: Change[]): BranchCommand {
  return {
    type: 'AdmitChanges',
    at: at(seconds),
    target: 'prod',
    author: alice,
    attribution: 'audit',
    changes,
  };
}

describe('a scoped change (collection delete, namespace removal, replica count) is a write of its own', () => {
  it('closes the window before and after it, even inside one command, so no change is reordered around it', () => {
    // the window orders its changes by each path's first sighting: a.yaml upserted again after the
    // collection delete must not be published before it
    const branch = new Branch().run(
      admitAll(0, [
        upsert('prod/tools/configmaps/a.yaml'),
        collection,
        upsert('prod/tools/configmaps/a.yaml', 11),
        scale,
      ]),
      { type: 'Tick', at: at(600) },
    );
    expect(
      pendingWrites(branch.state).map((write) =>
        write.changes?.map(({ operation, bytes }) => [operation, bytes]),
      ),
    ).toEqual([[['upsert', 10]], [['delete-collection', 5]], [['upsert', 11]], [['set-replicas', 3]]]);
    expect(ofType(branch.history, 'WindowClosed').map((fact) => fact.reason)).toEqual([
      'scoped-change',
      'scoped-change',
      'scoped-change',
      'scoped-change',
    ]);
  });

  it('is stored and read back by its operation (branch state version 4)', () => {
    const branch = new Branch().run(admitAll(0, [removal]), admitAll(1, [collection]), admitAll(2, [scale]));
    const state: BranchState = branch.state;
    expect(state.version).toBe(4);
    const reread = readStoredState(JSON.parse(JSON.stringify({ branch: state, snapshots: {} })));
    expect(reread.ok && pendingWrites(reread.state.branch).map((write) => write.changes)).toEqual([
      [{ path: removal.path, operation: 'delete-namespace', bytes: 0 }],
      [{ path: collection.path, operation: 'delete-collection', payloadRef: 'sha256:c', bytes: 5 }],
      [{ path: scale.path, operation: 'set-replicas', payloadRef: 'sha256:r', bytes: 3 }],
    ]);
  });

  it('reads a version 3 state (0.3.0) as version 4, its writes unchanged', () => {
    const branch = new Branch().run(admitAll(0, [upsert('prod/a.yaml')]), { type: 'Tick', at: at(600) });
    const v3 = { branch: { ...branch.state, version: 3 }, snapshots: {} };
    const reread = readStoredState(JSON.parse(JSON.stringify(v3)));
    expect(reread).toEqual({ ok: true, state: { branch: branch.state, snapshots: {} } });
    expect(initialState().version).toBe(4);
  });
});

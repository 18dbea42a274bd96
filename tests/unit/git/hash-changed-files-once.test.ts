import crypto from 'node:crypto';

// A publication that changes K files hashes each of them to compare it with the tree; the store that
// keeps the changed ones hashed them again. This counts the SHA-1s computed of blobs.

afterEach(() => jest.restoreAllMocks());

type Modules = {
  createTreeEditor: typeof import('../../../shared/git/tree-editor').createTreeEditor;
  createObjectStore: typeof import('../../../shared/git/object-store').createObjectStore;
};

it('hashes a changed file once: the SHA-1 it is compared with the tree by is the one the store keeps', async () => {
  // blob-oid.ts takes `crypto.hash` when it loads: spied first, then the modules loaded afresh
  const hash = jest.spyOn(crypto, 'hash');
  const createHash = jest.spyOn(crypto, 'createHash');
  let modules: Modules | undefined;
  jest.isolateModules(() => {
    modules = {
      createTreeEditor: require('../../../shared/git/tree-editor').createTreeEditor,
      createObjectStore: require('../../../shared/git/object-store').createObjectStore,
    };
  });
  const { createTreeEditor, createObjectStore } = modules!;
  const content = (i: number, rev: number) => `name: cm-${i}\nrev: ${rev}\n`;
  const readTree = async (): Promise<never> => {
    throw new Error('the kept view of the last tree is read, not the object cache');
  };
  const first = createTreeEditor({ rootTree: null, readTree, store: createObjectStore() });
  for (let i = 0; i < 20; i++) await first.put(['ns', `cm-${i}.yaml`], content(i, 1));
  const tree = first.writeTree();
  first.keep();
  hash.mockClear();
  createHash.mockClear();
  const store = createObjectStore();
  const second = createTreeEditor({ rootTree: tree, readTree, store });

  // 19 files changed, one put again as it is
  for (let i = 0; i < 20; i++) await second.put(['ns', `cm-${i}.yaml`], content(i, i === 0 ? 1 : 2));
  second.writeTree();

  const blobsHashed = hash.mock.calls.filter(([, data]) =>
    (typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('latin1')).startsWith(
      'blob ',
    ),
  ).length;
  // each file hashed once, to compare it with the tree; a changed one hashed again by the store was 39
  expect(blobsHashed).toBe(20);
  expect(createHash).not.toHaveBeenCalled();
  // the 19 changed files and their two folders
  expect(store.size).toBe(21);
});

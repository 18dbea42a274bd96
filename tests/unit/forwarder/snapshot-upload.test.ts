import { SNAPSHOT_PARTS_MAX } from '../../../shared/api/snapshot-parts';
import { SnapshotUpload } from '../../../shared/forwarder/snapshot';

const scope = { group: '', version: 'v1', resource: 'configmaps', namespace: 'shop' };
const configMap = (n: number) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `cm-${n}`, namespace: 'shop' },
  data: { n: String(n) },
});

/** Uploads `count` ConfigMaps with these part limits; answers the objects of each part and the completion. */
async function upload(count: number, limits: { partObjects: number; partBytes: number }) {
  const posts: { route: string; body: unknown }[] = [];
  const snapshot = new SnapshotUpload(
    { post: async (route, body) => void posts.push({ route, body }) },
    scope,
    'core/v1/configmaps@shop',
    limits,
    { advanced: () => {}, done: () => {} },
  );
  for (let n = 0; n < count; n++) await snapshot.add(configMap(n));
  await snapshot.complete('100');
  const parts = posts.filter((post) => post.route.endsWith('/parts'));
  return {
    partSizes: parts.map((post) => (post.body as { objects: unknown[] }).objects.length),
    names: parts.flatMap((post) =>
      (post.body as { objects: { object: { metadata: { name: string } } }[] }).objects.map(
        (entry) => entry.object.metadata.name,
      ),
    ),
    completion: posts.at(-1)?.body as { parts?: number },
  };
}

describe('a snapshot upload', () => {
  it('cuts a small snapshot at partObjects', async () => {
    const { partSizes, completion } = await upload(5, { partObjects: 2, partBytes: 4 * 1024 * 1024 });
    expect(partSizes).toEqual([2, 2, 1]);
    expect(completion.parts).toBe(3);
  });

  it('doubles the objects a part holds after each tenth of the parts kubescribe takes, so a scope stays within them', async () => {
    const count = SNAPSHOT_PARTS_MAX + 200;
    const { partSizes, names, completion } = await upload(count, {
      partObjects: 1,
      partBytes: 4 * 1024 * 1024,
    });
    const tenth = SNAPSHOT_PARTS_MAX / 10;
    expect(partSizes.slice(0, tenth)).toEqual(Array(tenth).fill(1));
    expect(partSizes.slice(tenth, 2 * tenth)).toEqual(Array(tenth).fill(2));
    expect(completion.parts).toBe(partSizes.length);
    expect(partSizes.length).toBeLessThanOrEqual(SNAPSHOT_PARTS_MAX);
    expect(names).toEqual(Array.from({ length: count }, (_, n) => `cm-${n}`));
  });
});

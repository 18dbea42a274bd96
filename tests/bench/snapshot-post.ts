/**
 * The scale benchmark's resync client, in a process of its own as a cluster's forwarder is: posts
 * the cluster's objects as the forwarder delivers a resync (`POSTERS` parts of `PART_OBJECTS` in
 * flight), then `complete` naming the part count. Each part's body is made just before it is sent,
 * as the forwarder pages through the API server. Prints one JSON line on stdout: when the first part
 * was sent and when `complete` was answered (epoch ms), so that the host's process measures only
 * the host's own work and memory.
 * Usage: snapshot-post.ts <target url> <snapshot id> <cluster objects> <changed every n-th (0: none)>
 */
import { clusterObject } from './cluster-objects';

const [target, id, objectsArg, changedArg] = process.argv.slice(2);
const OBJECTS = Number(objectsArg);
const CHANGED_EVERY = Number(changedArg);
const PART_OBJECTS = 500;
const POSTERS = 2;

async function post(path: string, body: string): Promise<void> {
  const response = await fetch(`${target}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (response.status !== 202) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

async function main(): Promise<void> {
  const parts = Math.ceil(OBJECTS / PART_OBJECTS);
  const changed = (i: number) => CHANGED_EVERY > 0 && i % CHANGED_EVERY === 0;
  let next = 0;
  // a running forwarder's HTTP client is loaded and connected: so is this one before the clock starts
  await (await fetch(target!)).arrayBuffer();
  const startedAt = Date.now();
  await Promise.all(
    Array.from({ length: POSTERS }, async () => {
      while (next < parts) {
        const part = next++;
        const objects = [];
        for (let i = part * PART_OBJECTS; i < Math.min(OBJECTS, (part + 1) * PART_OBJECTS); i++)
          objects.push(clusterObject(i, changed(i) ? 1 : 0));
        await post(`/snapshots/${id}/parts`, JSON.stringify({ objects }));
      }
    }),
  );
  await post(`/snapshots/${id}/complete`, JSON.stringify({ revision: id, parts }));
  console.log(JSON.stringify({ startedAt, postedAt: Date.now(), parts }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

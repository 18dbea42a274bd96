/**
 * The scale benchmark's cluster: object `i` spread evenly over NAMESPACES namespaces and TYPES
 * resource types of one API group, as its snapshots post them and its stream of changes
 * (`stream-load.ts`) modifies and adds them, and where the target's folder holds each one.
 */
export const NAMESPACES = 200;
export const TYPES = 30;
const GROUP = 'bench.example.com';

/** Object `i` at `version` (0: the first snapshot, 1: changed in the second), with `spec.stream` when a change of the stream. */
export function clusterObject(i: number, version: number, stream?: number) {
  const type = Math.floor(i / NAMESPACES) % TYPES;
  return {
    resource: `kind${type}s`,
    object: {
      apiVersion: `${GROUP}/v1`,
      kind: `Kind${type}`,
      metadata: {
        name: `obj-${i}`,
        namespace: `ns-${i % NAMESPACES}`,
        labels: { app: `app-${i % 97}`, tier: type % 2 === 0 ? 'web' : 'data' },
        // a stream's change is newer than either snapshot's version of the object
        resourceVersion: String(stream === undefined ? 1_000_000 * (version + 1) + i : 100_000_000 + stream),
      },
      spec: {
        replicas: 1 + (i % 5),
        image: `registry.example.com/app-${i % 97}:1.${version}`,
        index: i,
        ...(stream === undefined ? {} : { stream }),
      },
    },
  };
}

/** Where object `i` lands under the target's folder: `{namespace}/{group}/{resource}/{name}.yaml`. */
export function clusterObjectPath(i: number): string {
  const { resource, object } = clusterObject(i, 0);
  return `${object.metadata.namespace}/${GROUP}/${resource}/${object.metadata.name}.yaml`;
}

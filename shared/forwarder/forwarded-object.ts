import type { KubeObject } from './kube-reads';

/** The manager of an object's latest write, from its managedFields (the newest `time` wins, then the last entry). */
export function latestFieldManager(object: KubeObject): string | undefined {
  let latest: { manager?: string | undefined; time?: string | undefined } | undefined;
  for (const entry of object.metadata?.managedFields ?? []) {
    if (latest === undefined || (entry.time ?? '') >= (latest.time ?? '')) latest = entry;
  }
  return latest?.manager;
}

/** The object as posted: managedFields dropped (kubescribe never writes them to Git, and they can double a body). */
export function forwardedObject(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields === undefined) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}

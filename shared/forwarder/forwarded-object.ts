import type { KubeObject } from './kube-reads';

/** The object as posted: managedFields dropped (kubescribe never writes them to Git, and they can double a body). */
export function forwardedObject(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields === undefined) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}

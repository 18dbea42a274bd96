import type { ObjectStore, StoredObject } from '../../../shared/git/object-store';

/** Every object a store holds, in the order added: for a test to look through at leisure. */
export async function storedObjects(store: ObjectStore): Promise<[string, StoredObject][]> {
  const objects: [string, StoredObject][] = [];
  for await (const object of store.objects()) objects.push(object);
  return objects;
}

/**
 * Puts `key` last in `map` with `value` (a Map iterates in insertion order, so last is the most
 * recently used), then drops the oldest entries past `max`: what the executor remembers between
 * publications (read caches, tree views, known objects, packs found whole) stays bounded.
 */
export function keepLatest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const oldest of map.keys()) {
    if (map.size <= max) break;
    map.delete(oldest);
  }
}

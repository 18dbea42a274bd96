/**
 * Change paths as pending writes store them. A window's changes mostly share folders (one
 * request's ConfigMaps, one namespace's Deployments), so a path in the folder of the path stored
 * just before it is `/<name>`. Any other path is kept verbatim, except that one which itself starts
 * with `/` is kept behind another `/`: a stored path with a `/` after its first character is
 * verbatim, one without is a name in the previous folder.
 */
function folderEnd(path: string): number {
  return path.lastIndexOf('/');
}

/** `path` as stored, `previous` being the path of the change stored just before it in the same write. */
export function storePath(path: string, previous?: string): string {
  if (path.startsWith('/')) return `/${path}`;
  const end = folderEnd(path);
  if (
    end <= 0 ||
    previous === undefined ||
    folderEnd(previous) !== end ||
    !previous.startsWith(path.slice(0, end))
  )
    return path;
  return path.slice(end);
}

/** The path a stored one stands for, `previous` being the path expanded just before it. */
export function expandPath(stored: string, previous?: string): string {
  if (!stored.startsWith('/')) return stored;
  if (stored.indexOf('/', 1) > 0) return stored.slice(1);
  if (previous === undefined) throw new Error(`a stored path "${stored}" follows no path`);
  return previous.slice(0, folderEnd(previous)) + stored;
}

/**
 * Splits a repository-relative POSIX path into its names, or says why it is refused: absolute,
 * empty, `.`/`..` names, a `.git` name, control characters, or outside `inside` ('.' = root).
 */
export function checkWritePath({
  path,
  inside,
}: {
  path: string;
  inside: string;
}): string[] | { refused: string } {
  const segments = path.split('/');
  if (path.length === 0 || path.startsWith('/'))
    return { refused: `path "${path}" must be repository-relative` };
  if (hasControlCharacter(path)) return { refused: `path "${path}" contains a control character` };
  for (const name of segments) {
    if (name === '' || name === '.' || name === '..') return { refused: `path "${path}" is not normalized` };
    if (name.length === 4 && name.toLowerCase() === '.git')
      return { refused: `path "${path}" names a .git folder` };
  }
  if (inside !== '.' && path !== inside && !path.startsWith(`${inside}/`)) {
    return { refused: `path "${path}" is outside the target "${inside}"` };
  }
  return segments;
}

// a loop over the code units, not an array of the characters: a resync checks every file of a cluster
function hasControlCharacter(path: string): boolean {
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) < 0x20) return true;
  return false;
}

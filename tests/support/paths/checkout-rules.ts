// What stops a repository's paths from being checked out on Windows or macOS, written from the
// rules the systems apply, apart from kubescribe's encoder:
// - Git for Windows (core.protectNTFS, on by default) refuses a path whose segment holds
//   `: < > " | ? *`, `\` or a control character, ends in `.` or a space, or is a reserved device name
//   (AUX, CON, CONIN$, CONOUT$, NUL, PRN, COM<digit>, LPT<digit>, any case) followed by nothing, a
//   space, `.` or `:` (git/git compat/mingw.c `is_valid_win32_path`); Windows' own list is in
//   "Naming Files, Paths, and Namespaces" (learn.microsoft.com/windows/win32/fileio/naming-a-file),
//   which also gives MAX_PATH, 260 characters with the drive and the terminating NUL.
// - Git refuses `.git` in any form NTFS or HFS+ reads as it: `.git` followed by spaces or dots,
//   `git~1` (the 8.3 short name), and `.git` with Unicode ignorables on HFS+
//   (git/git path.c `is_ntfs_dotgit`, utf8.c `is_hfs_dotgit`).
// - NTFS and APFS (as macOS formats it) fold case: two paths equal but for case are one file there.
// - A segment is at most 255 bytes on NTFS, APFS and ext4.

/** Where a Windows user clones the repository; the path below it must fit MAX_PATH with it. */
export const WINDOWS_CLONE_FOLDER = 'C:\\Users\\jane\\src\\cluster-state\\';
const MAX_PATH = 260;

const ILLEGAL = /[:<>"|?*\\\p{Cc}]/u;
const RESERVED = /^(aux|con|conin\$|conout\$|nul|prn|com[0-9]|lpt[0-9])( *)($|[.:])/i;
const DOTGIT = /^(\.git[ .]*|git~1)$/i;

/** Why `path` cannot be checked out on Windows or macOS, or undefined. */
export function checkoutProblem(path: string): string | undefined {
  if (WINDOWS_CLONE_FOLDER.length + path.length >= MAX_PATH)
    return `${path}: ${WINDOWS_CLONE_FOLDER.length + path.length} characters in ${WINDOWS_CLONE_FOLDER}, MAX_PATH is ${MAX_PATH}`;
  for (const segment of path.split('/')) {
    if (ILLEGAL.test(segment)) return `${path}: "${segment}" has a character Windows refuses`;
    if (/[. ]$/.test(segment)) return `${path}: "${segment}" ends in a dot or space`;
    if (RESERVED.test(segment)) return `${path}: "${segment}" is a Windows device name`;
    if (DOTGIT.test(segment)) return `${path}: "${segment}" is .git to NTFS`;
    if (Buffer.byteLength(segment) > 255) return `${path}: "${segment.slice(0, 20)}…" is over 255 bytes`;
  }
  return undefined;
}

/** Every reason a tree of `paths` cannot be checked out on Windows or macOS: bad paths, case collisions. */
export function checkoutProblems(paths: readonly string[]): string[] {
  const problems = paths.flatMap((path) => checkoutProblem(path) ?? []);
  // a file and every folder above it, as a case-insensitive file system sees them
  const seen = new Map<string, string>();
  for (const path of paths) {
    const segments = path.split('/');
    for (let depth = 1; depth <= segments.length; depth++) {
      const exact = segments.slice(0, depth).join('/');
      const folded = exact.normalize('NFD').toLowerCase();
      const other = seen.get(folded);
      if (other !== undefined && other !== exact)
        problems.push(`${exact} and ${other} are one name to NTFS and APFS`);
      seen.set(folded, exact);
    }
  }
  return [...new Set(problems)];
}

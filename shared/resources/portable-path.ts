import { createHash } from 'node:crypto';

/**
 * Portable paths (`targets[].paths: portable`): every repository path a checkout on Windows (Git for
 * Windows with `core.protectNTFS`, the default), macOS (case-insensitive APFS) and Linux can create,
 * each segment encoded reversibly. Git for Windows refuses a path with `: < > " | ? *` or a control
 * character, a segment ending in `.` or space, or a reserved device name (`CON`, `PRN`, `AUX`, `NUL`,
 * `COM<digit>`, `LPT<digit>`, `CONIN$`, `CONOUT$`, in any case, alone or before `.`, space or `:`)
 * (git's compat/mingw.c `is_valid_win32_path`; Microsoft's "Naming Files, Paths, and Namespaces");
 * NTFS and APFS fold case, so `Admin.yaml` and `admin.yaml` are one file there; and a path over
 * MAX_PATH (260 with its drive and folder) cannot be checked out without `core.longpaths`.
 *
 * The encoding: every character but `a-z 0-9 . _ -` becomes `%` and the lowercase hex of its UTF-8
 * bytes (`system:admin` → `system%3aadmin`, `Admin` → `%41dmin`), so no encoded segment holds an
 * uppercase letter and case folding changes nothing; a segment that would start with a reserved
 * name has its first character encoded (`con` → `%63on`), one that would end in `.` its last.
 * Decoding is percent-decoding. A segment over its length budget is shortened as `fileName` does
 * (its start, `~`, 32 hex digits of the sha256 of the name, never decoded: the full name is in the file).
 */

/** The longest repository path written: 39 characters left of Windows' 259 for the clone's folder (`C:\Users\jane\src\state\`). */
export const PORTABLE_MAX_PATH = 220;
/** A namespace, API group or resource folder longer than this is shortened (folders depend on themselves only). */
export const PORTABLE_MAX_FOLDER = 40;
const HASH_HEX = 32;
// the shortest file name: one kept character, `~`, the hash and the longest extension
const MIN_FILE_NAME = 1 + 1 + HASH_HEX + '.sops.yaml'.length;
/** The longest target path a portable target may have: room is left for the deepest object's path. */
export const PORTABLE_MAX_TARGET_PATH = PORTABLE_MAX_PATH - (4 + 3 * PORTABLE_MAX_FOLDER + MIN_FILE_NAME);

const KEPT = /^[a-z0-9._-]$/;
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9]|conin\$|conout\$)(?=$|[ .:])/i;

function escapeCharacter(character: string): string {
  return [...Buffer.from(character)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** `text` with every character outside `a-z 0-9 . _ -` percent-encoded, a reserved start and a trailing dot too. */
export function escapeSegment(text: string): string {
  const characters = [...text];
  const encoded = characters.map((character) =>
    KEPT.test(character) ? character : escapeCharacter(character),
  );
  if (RESERVED.test(text) && encoded.length > 0) encoded[0] = escapeCharacter(characters[0]!);
  if (characters.at(-1) === '.') encoded[encoded.length - 1] = escapeCharacter('.');
  return encoded.join('');
}

/** A segment as written, decoded: undefined for a shortened one (`~`), whose full name is in the file. */
export function decodeSegment(segment: string): string | undefined {
  if (segment.includes('~')) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** `encoded` cut to at most `keep` characters, never inside a `%xx`. */
function cut(encoded: string, keep: number): string {
  let end = Math.max(0, keep);
  const lastEscape = encoded.lastIndexOf('%', end - 1);
  if (lastEscape >= 0 && lastEscape + 3 > end) end = lastEscape;
  return encoded.slice(0, end);
}

function shortened(encoded: string, original: string, length: number, extension = ''): string {
  const hash = createHash('sha256').update(original).digest('hex').slice(0, HASH_HEX);
  return `${cut(encoded, length - 1 - HASH_HEX - extension.length)}~${hash}${extension}`;
}

/** A namespace, API group or resource as a portable folder name. */
export function portableFolder(name: string): string {
  const encoded = escapeSegment(name);
  return encoded.length <= PORTABLE_MAX_FOLDER ? encoded : shortened(encoded, name, PORTABLE_MAX_FOLDER);
}

/**
 * An object's portable file name in a folder whose path (`{target}/{namespace}/…/{resource}`) is
 * `folderLength` characters long: the whole path stays within `PORTABLE_MAX_PATH` and the name
 * within 255 bytes.
 */
export function portableFileName(name: string, extension: string, folderLength: number): string {
  const file = `${escapeSegment(name)}${extension}`;
  const room = Math.min(PORTABLE_MAX_PATH - folderLength - 1, 255);
  if (file.length <= room) return file;
  return shortened(escapeSegment(name), name, Math.max(room, MIN_FILE_NAME), extension);
}

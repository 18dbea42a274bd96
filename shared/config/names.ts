const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const ENV_VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FORBIDDEN_IN_REF = /[ ~^:?*[\\]/;

/** A name used in URLs and branch keys (repository, target, source): a DNS-1123 label. */
export function isConfigName(text: string): boolean {
  return text.length <= 63 && DNS_LABEL.test(text);
}

/** An environment variable name as POSIX shells accept it. */
export function isEnvVarName(text: string): boolean {
  return ENV_VAR.test(text);
}

/** A branch name Git accepts (`git check-ref-format --branch` rules, short form). */
export function isBranchName(text: string): boolean {
  if (text.length === 0 || text.length > 255 || text === '@') return false;
  if (
    FORBIDDEN_IN_REF.test(text) ||
    hasControlCharacter(text) ||
    text.includes('..') ||
    text.includes('@{') ||
    text.includes('//')
  )
    return false;
  if (text.startsWith('-') || text.startsWith('/') || text.endsWith('/') || text.endsWith('.')) return false;
  return text.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * Checks a target path (`.` = the repository root, else a relative folder such as `clusters/prod`).
 * Returns the normalized path (no trailing slash, `.` for the root) or why it is refused; `..`,
 * absolute paths and empty segments could place files outside the target, so they never pass.
 */
export function checkTargetPath(text: string): { ok: true; path: string } | { ok: false; message: string } {
  const trimmed = text.endsWith('/') ? text.slice(0, -1) : text;
  if (trimmed === '.' || trimmed === '') return { ok: true, path: '.' };
  if (trimmed.startsWith('/') || /^[A-Za-z]:/.test(trimmed) || trimmed.includes('\\')) {
    return { ok: false, message: 'must be a relative path inside the repository ("." for the root)' };
  }
  const segments = trimmed.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') {
      return { ok: false, message: 'must not contain empty, "." or ".." segments' };
    }
    // Case-insensitive: Git refuses `.GIT` too on case-insensitive file systems, so a publication would fail.
    if (segment.toLowerCase() === '.git' || hasControlCharacter(segment)) {
      return { ok: false, message: 'must not contain ".git" (in any case) or control characters' };
    }
  }
  return { ok: true, path: segments.join('/') };
}

/** Whether `host` only listens on this machine, the one place `auth: disabled` is allowed. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Whether a credential may be sent to `url`: over https, or over plain http only to this machine
 * (a token sent in clear to another host can be read on the way).
 */
export function mayCarryCredential(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** Whether the text holds an ASCII control character (never valid in a path or ref). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

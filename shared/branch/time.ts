/**
 * Instants as ISO-8601 strings, with the arithmetic the branch needs. The state machine keeps no
 * `Date` (state and facts stay plain JSON, and nothing here can read a clock), so parsing and
 * formatting are done by hand with the proleptic Gregorian calendar.
 */

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** Days from 1970-01-01 to a civil date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** True when `text` is an ISO-8601 instant with a zone (`Z` or `±hh:mm`) this module can read. */
export function isInstant(text: string): boolean {
  return ISO_INSTANT.test(text);
}

function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/** The canonical form `YYYY-MM-DDTHH:MM:SS.sssZ` (every instant the branch writes) read without a regex. */
function canonicalToMs(iso: string): number {
  const days = daysFromCivil(digits(iso, 0, 4), digits(iso, 5, 2), digits(iso, 8, 2));
  const time =
    ((digits(iso, 11, 2) * 60 + digits(iso, 14, 2)) * 60 + digits(iso, 17, 2)) * 1000 + digits(iso, 20, 3);
  return days * 86_400_000 + time;
}

/** Milliseconds since the epoch of an ISO-8601 instant; NaN when it is not one. */
export function toMs(iso: string): number {
  // Deadlines are compared on every decision: the branch's own canonical instants take a fast path.
  if (
    iso.length === 24 &&
    iso[10] === 'T' &&
    iso[19] === '.' &&
    iso[23] === 'Z' &&
    iso[4] === '-' &&
    iso[13] === ':'
  ) {
    const ms = canonicalToMs(iso);
    if (!Number.isNaN(ms)) return ms;
  }
  const m = ISO_INSTANT.exec(iso);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const days = daysFromCivil(Number(y), Number(mo), Number(d));
  const millis = frac ? Math.floor(Number(`0.${frac}`) * 1000 + 1e-6) : 0;
  let offsetMs = 0;
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offsetMs = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return ((days * 24 + Number(h)) * 60 + Number(mi)) * 60_000 + Number(s) * 1000 + millis - offsetMs;
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** The canonical form of an instant: `YYYY-MM-DDTHH:MM:SS.sssZ`. */
export function toIso(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  // civil_from_days
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(millis, 3)}Z`;
}

/** `iso` moved by `ms` milliseconds, in canonical form. */
export function addMs(iso: string, ms: number): string {
  return toIso(toMs(iso) + ms);
}

/** A compact, sortable stamp of an instant for identifiers: `20261129T185122123Z`. */
export function compactStamp(iso: string): string {
  return toIso(toMs(iso)).replace(/[-:.]/g, '');
}

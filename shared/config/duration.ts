const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parses a Go-style duration (`2s`, `1m30s`, `500ms`, `1.5h`, `0`) into whole milliseconds, the way
 * Kubernetes users write them. Returns an error sentence instead of throwing so schemas can report it
 * at the field's path. Negative durations and sub-millisecond remainders are refused: every duration
 * here is a timer, and a timer cannot honour either.
 * @example parseDuration('1m30s') // { ok: true, ms: 90000 }
 */
export function parseDuration(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  const invalid = { ok: false as const, message: 'must be a duration such as "2s", "1m30s" or "500ms"' };
  if (text === '0') return { ok: true, ms: 0 };
  if (text.length === 0 || text.length > 64) return invalid;
  if (/^\d+(\.\d+)?$/.test(text)) return bareNumber(text);
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const match = PART.exec(text);
    if (!match) return invalid;
    const [, amount, unit] = match;
    total += Number(amount) * (UNIT_MS[unit as string] as number);
  }
  // Rounding guards against float noise such as 0.1s + 0.2s; a real remainder stays visible.
  const rounded = Math.round(total * 1e6) / 1e6;
  if (!Number.isFinite(rounded)) return invalid;
  if (!Number.isInteger(rounded)) return { ok: false, message: 'must be a whole number of milliseconds' };
  return { ok: true, ms: rounded };
}

/**
 * Why a bare number is refused, with the fix: `60` could mean seconds or milliseconds, and guessing
 * wrong is a window a thousand times too long or too short.
 */
export function bareNumber(text: string): { ok: false; message: string } {
  return { ok: false, message: `has no unit: write "${text}s" for seconds (or "${text}ms", "${text}m")` };
}

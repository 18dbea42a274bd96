import type { PullRequestText } from './forge';

/** What one host accepts: a title and a description of at most so many characters. */
export type TextLimits = { title: number; description: number };

// control characters (C0, DEL, C1), and the bidirectional overrides and isolates that make a page
// show text in another order than it is stored ("Trojan Source", CVE-2021-42574)
const INVISIBLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function clean(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(INVISIBLE, (c) => (c === '\n' || c === '\t' ? c : ''));
}

/** `text` cut to at most `limit` UTF-16 units, never inside a surrogate pair. */
function cutAt(text: string, limit: number): string {
  const end = /[\ud800-\udbff]/.test(text.charAt(limit - 1)) ? limit - 1 : limit;
  return text.slice(0, Math.max(0, end));
}

/**
 * A description within `limit`: whole lines kept while they fit, the rest named by a visible last
 * line ("… and N more lines") so a reader knows the list goes on. The limit is counted in UTF-16
 * units, which is never fewer than the characters a host counts.
 */
function boundDescription(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const lines = text.split('\n');
  const note = (more: number) => `\n… and ${more} more ${more === 1 ? 'line' : 'lines'}`;
  let kept = 0;
  let used = 0;
  // room for the longest note this description can need
  const room = limit - note(lines.length).length;
  while (kept < lines.length && used + (lines[kept]?.length ?? 0) + (kept > 0 ? 1 : 0) <= room) {
    used += (lines[kept]?.length ?? 0) + (kept > 0 ? 1 : 0);
    kept += 1;
  }
  if (kept === 0) {
    // a first line longer than the whole limit: its start, marked as cut, then the lines after it
    const rest = lines.length - 1;
    return `${cutAt(lines[0] ?? '', room - 1)}…${rest > 0 ? note(rest) : ''}`;
  }
  return `${lines.slice(0, kept).join('\n')}${note(lines.length - kept)}`;
}

/**
 * The text as a host will take it: control and bidirectional-override characters removed, the
 * title on one line, both within the host's limits. A title is never empty (hosts refuse one).
 */
export function boundText(text: PullRequestText, limits: TextLimits): PullRequestText {
  const oneLine = clean(text.title).replace(/\s+/g, ' ').trim();
  const title = oneLine.length > limits.title ? `${cutAt(oneLine, limits.title - 1)}…` : oneLine;
  return {
    title: title || 'kubescribe changes',
    description: boundDescription(clean(text.description), limits.description),
  };
}

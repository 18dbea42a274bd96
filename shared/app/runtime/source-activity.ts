import type { Condition } from '../../branch';
import { emit } from '../../telemetry/bus';

/** A feed configured with `quietAfter`: the targets it writes and how long it may stay silent. */
export interface WatchedFeed {
  source: string;
  targets: readonly string[];
  quietAfterMs: number;
}

/** `SourceQuiet` on a target: a feed that writes it has sent nothing for its `quietAfter`. */
export type SourceQuietCondition = Omit<Condition, 'type'> & { type: 'SourceQuiet' };

/** A feed's silence as the status shows it. */
export interface QuietFeed {
  source: string;
  lastHeard: string | null;
  quietSince: string;
}

/**
 * When each source was last heard from (its last accepted write, any target), in this process:
 * a host that restarts counts silence from its start, so a feed that stays silent across a restart
 * is reported `quietAfter` later, never missed.
 */
export interface SourceActivity {
  /** Records a write from `source`; true when it had been reported quiet by {@link sweep} (heard again). */
  heard(source: string, atMs: number): boolean;
  /** The feeds gone quiet at `atMs` and not yet reported: each is reported once until it sends again. */
  sweep(atMs: number): QuietFeed[];
  /** The feeds of `target` silent for longer than their `quietAfter` at `atMs`. */
  quiet(target: string, atMs: number): QuietFeed[];
  /** `SourceQuiet` True naming the silent feeds, False once they all sent; absent when no feed is watched. */
  condition(target: string, atMs: number): SourceQuietCondition | undefined;
}

export function sourceActivity(feeds: readonly WatchedFeed[], startedAtMs: number): SourceActivity {
  const lastHeard = new Map<string, number>();
  const reported = new Set<string>();
  const watches = (feed: WatchedFeed, target: string) =>
    feed.targets.includes('*') || feed.targets.includes(target);
  const silence = (feed: WatchedFeed, atMs: number): QuietFeed[] => {
    const heard = lastHeard.get(feed.source);
    const quietSinceMs = (heard ?? startedAtMs) + feed.quietAfterMs;
    if (atMs < quietSinceMs) return [];
    return [
      {
        source: feed.source,
        lastHeard: heard === undefined ? null : new Date(heard).toISOString(),
        quietSince: new Date(quietSinceMs).toISOString(),
      },
    ];
  };
  const quiet = (target: string, atMs: number): QuietFeed[] =>
    feeds.filter((feed) => watches(feed, target)).flatMap((feed) => silence(feed, atMs));
  return {
    heard(source, atMs) {
      lastHeard.set(source, Math.max(atMs, lastHeard.get(source) ?? atMs));
      return reported.delete(source);
    },
    sweep(atMs) {
      const news = feeds.flatMap((feed) => silence(feed, atMs)).filter((feed) => !reported.has(feed.source));
      for (const feed of news) reported.add(feed.source);
      return news;
    },
    quiet,
    condition(target, atMs) {
      if (!feeds.some((feed) => watches(feed, target))) return undefined;
      const silent = quiet(target, atMs);
      if (silent.length === 0) {
        const latest = Math.max(
          startedAtMs,
          ...feeds.filter((feed) => watches(feed, target)).map((feed) => lastHeard.get(feed.source) ?? 0),
        );
        return {
          type: 'SourceQuiet',
          status: 'False',
          reason: 'SourcesSending',
          message: 'every watched source sent within its quietAfter',
          lastTransitionTime: new Date(latest).toISOString(),
        };
      }
      return {
        type: 'SourceQuiet',
        status: 'True',
        reason: 'NothingReceived',
        message: silent
          .map(
            (feed) =>
              `source "${feed.source}" has sent nothing since ${feed.lastHeard ?? 'the host started'}`,
          )
          .join('; '),
        lastTransitionTime: silent.map((feed) => feed.quietSince).sort()[0]!,
      };
    },
  };
}

/** Tells the operators of every feed gone quiet since the last look (the keeper looks each minute). */
export function reportQuietSources(activity: SourceActivity, atMs: number): void {
  for (const feed of activity.sweep(atMs)) emit({ type: 'SourceWentQuiet', ...feed });
}

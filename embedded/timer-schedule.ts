/**
 * The timer schedules the embedded host runs: a fixed interval of seconds or minutes
 * (`*\/N * * * * *`, `0 *\/N * * * *`), fired at multiples of it like NCRONTAB's.
 */
/** The interval of a schedule the host can run, in ms; undefined for any other NCRONTAB expression. */
export function scheduleIntervalMs(schedule: string): number | undefined {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 6 || fields.slice(2).some((field) => field !== '*')) return undefined;
  const [second, minute] = fields as [string, string];
  const every = (field: string) =>
    field === '*' ? 1 : Number(/^\*\/([1-9][0-9]?)$/.exec(field)?.[1] ?? Number.NaN);
  if (second === '0') return Number.isNaN(every(minute)) ? undefined : every(minute) * 60_000;
  return minute === '*' && second !== '*' && !Number.isNaN(every(second)) ? every(second) * 1000 : undefined;
}

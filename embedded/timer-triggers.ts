/**
 * Timer triggers, on the host's clock (`timer-schedule.ts` says which schedules). Each fire
 * invokes the function with the TimerInfo the worker passes; a fire whose previous run has not
 * ended is skipped, as the Functions host never overlaps runs of one timer function.
 */
import type { Clock } from './clock';
import type { RegisteredFunction } from './core-module';
import type { HostContext } from './host-context';
import { type InputData, invokeFunction } from './invoke';
import { scheduleIntervalMs } from './timer-schedule';

export interface TimerTriggers {
  /** Resolves when no timer function is running. */
  idle(): Promise<void>;
  busy(): boolean;
  stop(): void;
}

export function startTimerTriggers({
  functions,
  clock,
  log,
  functionLog,
  clientInputs,
}: {
  functions: Iterable<RegisteredFunction>;
  clock: Clock;
  log: HostContext['log'];
  functionLog: HostContext['functionLog'];
  clientInputs: (fn: RegisteredFunction) => InputData[];
}): TimerTriggers {
  const cancels: (() => void)[] = [];
  const running = new Set<Promise<void>>();
  let stopped = false;
  for (const fn of functions) {
    if (fn.trigger.type !== 'timerTrigger') continue;
    const intervalMs = scheduleIntervalMs(String(fn.trigger.schedule ?? ''))!;
    let busy = false;
    const arm = (last: number): void => {
      const next = (Math.floor(clock.now() / intervalMs) + 1) * intervalMs;
      cancels.push(
        clock.at(next, () => {
          if (stopped) return;
          arm(next);
          if (busy) return;
          busy = true;
          const info = {
            schedule: { adjustForDST: true },
            scheduleStatus: {
              last: new Date(last).toISOString(),
              next: new Date(next + intervalMs).toISOString(),
              lastUpdated: new Date(next).toISOString(),
            },
            isPastDue: clock.now() - next > intervalMs,
          };
          const run = invokeFunction({
            fn,
            inputs: [{ name: fn.triggerName, data: { json: JSON.stringify(info) } }, ...clientInputs(fn)],
            log: functionLog,
          })
            .then(
              () => undefined,
              (error: unknown) =>
                log('warn', 'TimerFunctionFailed', { function: fn.name, error: String(error) }),
            )
            .finally(() => {
              busy = false;
              running.delete(run);
            });
          running.add(run);
        }),
      );
    };
    arm(clock.now());
  }
  return {
    async idle() {
      while (running.size > 0) await Promise.all(running);
    },
    busy: () => running.size > 0,
    stop() {
      stopped = true;
      for (const cancel of cancels) cancel();
    },
  };
}

import { type ForwarderConfigInput, parseForwarderConfig } from '../../../../shared/forwarder/config';
import { runForwarder } from '../../../../shared/forwarder/forward';
import type { KubeConnection } from '../../../../shared/forwarder/kube-reads';
import type { ForwarderLogEvent } from '../../../../shared/forwarder/runtime';
import { manualDelay } from './manual-delay';

/** A logged forwarder event with its fields. */
export type LoggedEvent = { event: ForwarderLogEvent } & Record<string, unknown>;

/** A forwarder running in the test's process against a fake API server, with held waits and a captured log. */
export interface RunningForwarder {
  logs: LoggedEvent[];
  waits: ReturnType<typeof manualDelay>;
  /** Settles when the forwarder stops (after `stop`, or on its own with `once` or a fatal error). */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** A connection to the fake API server with its bearer token. */
export function fakeConnection(url: string, token: string): KubeConnection {
  return { server: url, requestOptions: async () => ({ headers: { authorization: `Bearer ${token}` } }) };
}

/** Starts `runForwarder` with `config` (validated as the CLI would) and a random source fixed at 0.5. */
export function startForwarder({
  config,
  connection,
  token,
  once = false,
}: {
  config: ForwarderConfigInput;
  connection: KubeConnection;
  token?: string;
  once?: boolean;
}): RunningForwarder {
  const logs: LoggedEvent[] = [];
  const waits = manualDelay();
  const controller = new AbortController();
  const done = runForwarder({
    config: parseForwarderConfig(JSON.stringify(config)),
    connection,
    token,
    once,
    delay: waits.delay,
    random: () => 0.5,
    log: (event, fields) => logs.push({ event, ...fields }),
    progress: { advanced: () => {}, done: () => {} },
    signal: controller.signal,
  });
  // Observed by the test through `done`; this keeps an early rejection from being reported as unhandled.
  done.catch(() => {});
  return {
    logs,
    waits,
    done,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

/**
 * Activity threads: the embedded host can run activity functions on worker threads, the way the
 * Functions host spreads invocations over language worker processes, so that a long activity (a Git
 * publication building thousands of trees) does not hold up the HTTP routes, entity batches and
 * orchestrations on the main thread. Durable state never leaves the main thread: a thread gets an
 * activity's input and client binding, and gives back its result.
 */
import { extname, join } from 'node:path';
import { SHARE_ENV, Worker } from 'node:worker_threads';
import { type ActivityThreadRequest, activityThreadReplySchema } from './activity-thread-messages';
import type { FunctionLog } from './invoke';

/** A pool of activity threads. */
export interface ActivityThreads {
  /** Runs one activity invocation on the least busy thread; resolves with its return value. */
  invoke(request: Omit<ActivityThreadRequest, 'id'>): Promise<unknown>;
  /** Resolves once every thread has loaded the app (or failed to: its activities then fail, saying why). */
  ready: Promise<void>;
  /** Ends every thread; invocations still running are rejected. */
  stop(): Promise<void>;
}

/**
 * The young generation of an activity thread's heap, in MB. V8 grows it up to 48 MB (two 16 MB
 * semi-spaces and as much for large new objects) under a publication's allocation rate and keeps
 * it: a cluster's first snapshot built its tree with 34 MB of young generation beside the main
 * thread's own. At 8 MB the host's peak RSS for 40,000 objects went from 352–364 to 310–314 MB, with
 * no slower publication: what a publication allocates is short-lived (a file's text, its hash, its
 * tree entry), and what survives (the tree view) is promoted either way. A thread's limit, set
 * where the thread starts: no V8 flag on the process's command line.
 */
export const ACTIVITY_YOUNG_GENERATION_MB = 8;

type Pending = { resolve(value: unknown): void; reject(error: Error): void };
type Thread = { worker: Worker; pending: Map<number, Pending>; ended: boolean; loaded: Promise<void> };

/**
 * The script a thread starts with. Under tsx (in development) TypeScript is compiled on require, which
 * a thread does not inherit from its parent, so the thread registers tsx's require hook first.
 */
function bootstrap(entry: string): string {
  const tsx = extname(entry) === '.ts' ? `require(${JSON.stringify(require.resolve('tsx/cjs'))});\n` : '';
  return `${tsx}require(${JSON.stringify(entry)});\n`;
}

/** Starts `count` threads that each load the app from `appEntry` (a thread that ends is started again when needed). */
export function startActivityThreads({
  appEntry,
  count,
  log,
}: {
  appEntry: string;
  count: number;
  log: FunctionLog;
}): ActivityThreads {
  // the thread's entry is a sibling of this module: .ts under tsx (which the thread inherits), .js built
  const entry = join(__dirname, `activity-thread${extname(__filename)}`);
  let nextId = 0;
  const threads: (Thread | undefined)[] = Array.from({ length: count }, () => undefined);

  function start(slot: number): Thread {
    const worker = new Worker(bootstrap(entry), {
      eval: true,
      workerData: { appEntry },
      env: SHARE_ENV,
      resourceLimits: { maxYoungGenerationSizeMb: ACTIVITY_YOUNG_GENERATION_MB },
    });
    let loaded = () => {};
    const thread: Thread = {
      worker,
      pending: new Map(),
      ended: false,
      loaded: new Promise((resolve) => {
        loaded = resolve;
      }),
    };
    const end = (error: Error) => {
      loaded();
      if (thread.ended) return;
      thread.ended = true;
      if (threads[slot] === thread) threads[slot] = undefined;
      for (const waiting of thread.pending.values()) waiting.reject(error);
      thread.pending.clear();
      void worker.terminate();
    };
    worker.on('message', (message: unknown) => {
      const reply = activityThreadReplySchema.parse(message);
      switch (reply.kind) {
        case 'ready':
          return loaded();
        case 'log':
          return log(reply.fn, reply.level, reply.category, reply.message);
        case 'fatal':
          return end(new Error(`the app failed to load in an activity thread: ${reply.message}`));
        case 'result':
        case 'error': {
          const waiting = thread.pending.get(reply.id);
          thread.pending.delete(reply.id);
          if (reply.kind === 'result') waiting?.resolve(reply.value);
          else waiting?.reject(Object.assign(new Error(reply.message), { stack: reply.stack }));
          return;
        }
      }
    });
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`an activity thread exited with code ${code}`)));
    return thread;
  }

  function leastBusy(): Thread {
    let best = 0;
    for (let slot = 0; slot < count; slot++) {
      threads[slot] ??= start(slot);
      if (threads[slot]!.pending.size < threads[best]!.pending.size) best = slot;
    }
    return threads[best]!;
  }

  // started now, so that loading the app does not delay the first activity
  for (let slot = 0; slot < count; slot++) threads[slot] = start(slot);
  return {
    ready: Promise.all(threads.map((thread) => thread?.loaded)).then(() => {}),
    invoke(request) {
      const thread = leastBusy();
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        thread.pending.set(id, { resolve, reject });
        thread.worker.postMessage({ id, ...request } satisfies ActivityThreadRequest);
      });
    },
    async stop() {
      await Promise.all(
        threads.map(async (thread) => {
          if (!thread) return;
          thread.ended = true;
          for (const waiting of thread.pending.values()) waiting.reject(new Error('the host is stopping'));
          await thread.worker.terminate();
        }),
      );
    },
  };
}

/**
 * Where occurrences go: every sink subscribed in this process. The embedded host may run activities
 * on worker threads, each with its own copy of the app; what they emit is forwarded to the main
 * thread, whose sinks (the log, the one `/metrics` registry) see the whole process.
 */
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import type { Occurrence } from './occurrences';

export type Sink = (occurrence: Occurrence) => void;

const CHANNEL = 'kubescribe-occurrences';
const sinks = new Set<Sink>();
let fromThreads: BroadcastChannel | undefined;
let toMain: BroadcastChannel | undefined;

/** Tells every sink. A sink that throws never fails the work that emitted. */
export function emit(occurrence: Occurrence): void {
  if (!isMainThread) {
    toMain ??= unref(new BroadcastChannel(CHANNEL));
    toMain.postMessage(occurrence);
    return;
  }
  deliver(occurrence);
}

function deliver(occurrence: Occurrence): void {
  for (const sink of sinks) {
    try {
      sink(occurrence);
    } catch {
      // telemetry is never a reason for the work to fail
    }
  }
}

/** Subscribes a sink (on the main thread; a worker thread forwards there). Returns its unsubscribe. */
export function subscribe(sink: Sink): () => void {
  sinks.add(sink);
  if (isMainThread && !fromThreads) {
    fromThreads = unref(new BroadcastChannel(CHANNEL));
    fromThreads.onmessage = (message) => deliver((message as { data: Occurrence }).data);
  }
  return () => {
    sinks.delete(sink);
  };
}

/** Whether any sink listens: an emitter may skip measuring what nobody reads. */
export function listening(): boolean {
  return sinks.size > 0 || !isMainThread;
}

function unref(channel: BroadcastChannel): BroadcastChannel {
  // an idle channel must not keep a process (or a test) alive
  (channel as unknown as { unref?: () => void }).unref?.();
  return channel;
}

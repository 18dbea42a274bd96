/**
 * Branch state machine benchmark (`npm run bench -- branch`):
 * 1. decisions per second for admitted changes on one core, with the driver answering publications
 *    (a healthy branch whose windows fill to the byte cap), against a side-by-side baseline: validating
 *    the same command with `branchCommandSchema` (what the entity does for every signal anyway);
 * 2. whether an admit stays O(1) as the open window grows (late-window rate / early-window rate);
 * 3. the serialized state of the healthy branch while a window closed at the byte cap is published;
 * 4. the serialized state size with the intake budget full of 1 KiB changes, in one open window and
 *    as one pending write per change (goal ≤ 1 MB, the Durable Task Scheduler's entity limit), also
 *    with the app's changes (canonical paths under a target folder, `[UPDATE] apps/v1/…` messages
 *    that cannot be derived from the path) and while the retry attempt carries them all.
 */
import { createHash } from 'node:crypto';
import {
  type BranchCommand,
  type BranchState,
  branchCommandSchema,
  handle,
  initialState,
  owedEffects,
} from '../../shared/branch';

const START_MS = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(START_MS + ms).toISOString();
const author = { name: 'Alice', username: 'alice', email: 'alice@example.com' };

function admitOf(index: number, atMs: number, asTheApp = false): BranchCommand {
  const name = `web-${String(index).padStart(6, '0')}`;
  const path = asTheApp
    ? `clusters/prod/shop/apps/deployments/${name}.yaml`
    : `prod/apps/deployments/${name}.yaml`;
  return {
    type: 'AdmitChanges',
    at: iso(atMs),
    target: 'prod',
    author,
    attribution: 'audit',
    changes: [
      {
        path,
        operation: 'upsert',
        payloadRef: `sha256:${createHash('sha256').update(path).digest('hex')}`,
        bytes: 1024,
        resourceVersion: String(100_000 + index),
        ...(asTheApp
          ? { subject: { apiVersion: 'apps/v1', resource: 'deployments', namespace: 'shop', name } }
          : {}),
      },
    ],
  };
}

function answerPublication(state: BranchState, atMs: number): BranchState {
  const publish = owedEffects(state).find((effect) => effect.type === 'publish');
  if (publish?.type !== 'publish') return state;
  const commits = Object.fromEntries(publish.writes.map((write) => [write.id, `sha-${write.id}`]));
  return handle(state, {
    type: 'RecordPublicationResult',
    at: iso(atMs),
    attempt: publish.attempt,
    result: { outcome: 'published', commits, head: `head-${atMs}` },
  }).state;
}

function measureAdmits(count: number): {
  perSecond: number;
  earlyPerSecond: number;
  latePerSecond: number;
  windows: number;
  cappedInFlightBytes: number;
} {
  // 2 ms apart (0.5 MiB/s of 1 KiB changes): a window reaches the 8 MiB cap after the 10 s cooldown, so
  // each capped window publishes at once, as a healthy branch does.
  const commands = Array.from({ length: count }, (_, i) => admitOf(i, 2 * i));
  let state = initialState();
  let windows = 0;
  // the state while a window closed at the byte cap is being published (the first window publishes alone)
  let cappedInFlightBytes = 0;
  let early = 0;
  let earlyCount = 0;
  let late = 0;
  let lateCount = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const paths = state.window?.paths ?? 0;
    const before = process.hrtime.bigint();
    state = handle(state, commands[i]!).state;
    const took = Number(process.hrtime.bigint() - before);
    if (paths < 1000) {
      early += took;
      earlyCount += 1;
    } else if (paths > 7000) {
      late += took;
      lateCount += 1;
    }
    if (state.publication.inFlight) {
      windows += 1;
      if (windows === 2) cappedInFlightBytes = Buffer.byteLength(JSON.stringify(state));
      state = answerPublication(state, 2 * i);
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return {
    perSecond: count / seconds,
    earlyPerSecond: earlyCount / (early / 1e9),
    latePerSecond: lateCount / (late / 1e9),
    windows,
    cappedInFlightBytes,
  };
}

function measureValidation(count: number): number {
  const commands = Array.from({ length: count }, (_, i) => admitOf(i, i));
  const started = process.hrtime.bigint();
  for (const command of commands) branchCommandSchema.parse(command);
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Fills the intake budget with 1 KiB changes during an outage and returns the state when intake pauses. */
function fullBudget(maxDurationMs: number, asTheApp = false): { state: BranchState; changes: number } {
  let state = handle(initialState(), {
    type: 'ChangeSettings',
    at: iso(0),
    target: 'prod',
    ...(asTheApp ? { path: 'clusters/prod' } : {}),
    window: { idleTimeoutMs: 3_600_000, maxDurationMs },
  }).state;
  // one failed publication puts the branch in retry, so the budget applies
  state = handle(state, { ...admitOf(0, 0, asTheApp), at: iso(0) }).state;
  if (!state.publication.inFlight) {
    state = handle(state, { type: 'Tick', at: iso(3_600_000) }).state;
  }
  const attempt = state.publication.inFlight?.attempt ?? 'attempt-1';
  state = handle(state, {
    type: 'RecordPublicationResult',
    at: iso(1),
    attempt,
    result: { outcome: 'transient', cause: { message: 'connection refused' } },
  }).state;
  let changes = 1;
  while (!state.publication.intakePaused) {
    state = handle(state, admitOf(changes, 2 + changes, asTheApp)).state;
    changes += 1;
  }
  return { state, changes };
}

const ADMITS = 200_000;
measureAdmits(20_000); // warm-up
const admits = measureAdmits(ADMITS);
const validation = measureValidation(ADMITS);
const inWindow = fullBudget(3_600_000);
const asWrites = fullBudget(0);
const asTheAppsWrites = fullBudget(0, true);
// the retry deadline passes: one attempt carries every pending write
const inFlight = (full: { state: BranchState; changes: number }) => ({
  ...full,
  state: handle(full.state, { type: 'Tick', at: iso(3_600_000) }).state,
});
const sizeOf = (state: BranchState) => Buffer.byteLength(JSON.stringify(state));

console.log(
  `admitted changes: ${ADMITS} decisions, ${admits.windows} windows closed at the byte cap and published`,
);
console.log(
  `  decide+evolve: ${Math.round(admits.perSecond).toLocaleString('en')} decisions/s on one core (goal ≥ 50,000/s)`,
);
console.log(
  `  baseline (zod validation of the same command): ${Math.round(validation).toLocaleString('en')} commands/s; ratio decisions/validation = ${(admits.perSecond / validation).toFixed(2)}`,
);
console.log(
  `  O(1) check: admits into a window of >7,000 paths vs <1,000 paths = ${(admits.latePerSecond / admits.earlyPerSecond).toFixed(2)} (1.0 = flat)`,
);
console.log(
  `state of the healthy branch while a window closed at the 8 MiB byte cap is published: ${admits.cappedInFlightBytes.toLocaleString('en')} bytes serialized = ${(admits.cappedInFlightBytes / 1_000_000).toFixed(2)} of the 1 MB entity limit`,
);
for (const [name, full] of [
  ['one open window', inWindow],
  ['one pending write per change', asWrites],
  ['one pending write per change, in flight', inFlight(asWrites)],
  ["one pending write per change, the app's paths and messages", asTheAppsWrites],
  ["one pending write per change, the app's paths and messages, in flight", inFlight(asTheAppsWrites)],
] as const) {
  const bytes = sizeOf(full.state);
  console.log(
    `state with the 8 MiB budget full of 1 KiB changes (${name}): ${full.changes} changes, ${bytes.toLocaleString('en')} bytes serialized = ${(bytes / 1_000_000).toFixed(2)} of the 1 MB entity limit`,
  );
}

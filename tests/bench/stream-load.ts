/**
 * The scale benchmark's steady stream of changes, in a process of its own as a cluster's forwarder
 * and an observer of the remote are: it posts one watch event at a time on a fixed schedule of
 * `rate` per second (not waiting for the previous answer), three in four modifying an existing
 * object of the cluster and one in four adding a new one, across the namespaces and resource
 * types; meanwhile it watches the remote branch, and each time its head moves it reads the changed
 * objects' files there. A change's latency runs from its scheduled send to the first head seen
 * whose tree holds it (or a later change to the same object). Prints one JSON line on stdout:
 * the latencies (ms, sorted), the same from each change's answer on (ms, sorted: what is left once
 * the app has taken the change), the heads seen, the slowest answer to a post (ms), the most
 * posts in flight at once.
 * Changes are numbered from `first` on, so that streams one after another write new content.
 * Usage: stream-load.ts <events url> <bare repository> <target folder> <cluster objects> <first> <samples> <rate>
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterObject, clusterObjectPath } from './cluster-objects';

const [url, remote, folder, objectsArg, firstArg, samplesArg, rateArg] = process.argv.slice(2);
const OBJECTS = Number(objectsArg);
const FIRST = Number(firstArg);
const SAMPLES = Number(samplesArg);
const RATE = Number(rateArg);
const POLL_MS = 20;
const GIVE_UP_MS = 120_000;

/** Change `k` of the stream: which object it writes, and the watch event. */
function streamChange(k: number, objects: number) {
  const added = k % 4 === 0;
  // a stride prime to the cluster's size: modified objects are distinct and spread over namespaces and types
  const i = added ? objects + k : (k * 7919) % objects;
  return { i, event: { type: added ? 'ADDED' : 'MODIFIED', ...clusterObject(i, 2, k) } };
}

async function run(command: string, args: string[], input = ''): Promise<Buffer> {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exited = new Promise<number | null>((done) => child.once('close', done));
  child.stdin.end(input);
  const code = await exited;
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${code}`);
  return Buffer.concat(chunks);
}

async function head(): Promise<string> {
  // the loose ref is what a push or the app's compare-and-swap writes; rev-parse once it is packed
  const loose = await readFile(join(remote!, 'refs', 'heads', 'main'), 'utf8').catch(() => null);
  if (loose !== null) return loose.trim();
  return (await run('git', [`--git-dir=${remote}`, 'rev-parse', '--verify', '-q', 'main']).catch(() => ''))
    .toString()
    .trim();
}

/** The `spec.stream` each path holds at `commit` (null: no such file, or no stream change in it). */
async function streamMarks(commit: string, paths: string[]): Promise<(number | null)[]> {
  const out = await run(
    'git',
    [`--git-dir=${remote}`, 'cat-file', '--batch'],
    paths.map((path) => `${commit}:${folder}/${path}\n`).join(''),
  );
  const marks: (number | null)[] = [];
  let at = 0;
  for (let n = 0; n < paths.length; n++) {
    const eol = out.indexOf(10, at);
    const header = out.subarray(at, eol).toString();
    at = eol + 1;
    if (header.endsWith(' missing')) {
      marks.push(null);
      continue;
    }
    const size = Number(header.split(' ')[2]);
    const content = out.subarray(at, at + size).toString();
    at += size + 1;
    const match = /^\s*stream: (\d+)$/m.exec(content);
    marks.push(match ? Number(match[1]) : null);
  }
  return marks;
}

async function main(): Promise<void> {
  const intervalMs = 1000 / RATE;
  const scheduled: number[] = [];
  const latencies: (number | undefined)[] = [];
  const answered: number[] = [];
  const seenAt: number[] = [];
  let answeredMax = 0;
  let inFlight = 0;
  let inFlightMax = 0;
  let failure: unknown;
  const posts: Promise<void>[] = [];
  const started = performance.now();

  const send = async (k: number) => {
    const postedAt = performance.now();
    answered[k] = Number.POSITIVE_INFINITY;
    inFlight++;
    inFlightMax = Math.max(inFlightMax, inFlight);
    try {
      const response = await fetch(url!, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [streamChange(FIRST + k, OBJECTS).event] }),
      });
      if (response.status !== 202)
        throw new Error(`change ${k}: ${response.status} ${await response.text()}`);
      answered[k] = performance.now();
    } catch (error) {
      failure ??= error;
    } finally {
      inFlight--;
      answeredMax = Math.max(answeredMax, performance.now() - postedAt);
    }
  };

  const sender = (async () => {
    for (let k = 0; k < SAMPLES && failure === undefined; k++) {
      const due = started + k * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      scheduled.push(due);
      posts.push(send(k));
    }
  })();

  let seen = await head();
  let heads = 0;
  let resolved = 0;
  while (resolved < SAMPLES && failure === undefined) {
    await sleep(POLL_MS);
    const now = performance.now();
    const current = await head();
    if (current !== seen && current !== '') {
      seen = current;
      heads++;
      const open = scheduled.flatMap((_, k) => (latencies[k] === undefined ? [k] : []));
      const marks = await streamMarks(
        current,
        open.map((k) => clusterObjectPath(streamChange(FIRST + k, OBJECTS).i)),
      );
      open.forEach((k, n) => {
        const mark = marks[n];
        if (mark !== null && mark !== undefined && mark >= FIRST + k) {
          latencies[k] = now - scheduled[k]!;
          seenAt[k] = now;
          resolved++;
        }
      });
    }
    const oldest = scheduled.findIndex((_, k) => latencies[k] === undefined);
    if (oldest >= 0 && now - scheduled[oldest]! > GIVE_UP_MS)
      failure = new Error(`change ${oldest} was not on the remote branch within ${GIVE_UP_MS} ms`);
  }
  await sender;
  await Promise.all(posts);
  if (failure !== undefined) throw failure;
  process.stdout.write(
    `${JSON.stringify({
      latencies: (latencies as number[]).sort((a, b) => a - b),
      // a head can hold a change before its answer arrives
      afterAnswer: seenAt.map((at, k) => Math.max(0, at - answered[k]!)).sort((a, b) => a - b),
      heads,
      answeredMaxMs: answeredMax,
      inFlightMax,
    })}\n`,
  );
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });

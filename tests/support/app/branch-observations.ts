// What the validation tests observe of a target: its Git history (through the real `git` CLI) and
// the app's answers. Only public surfaces: the bare repository and the HTTP routes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runGit } from '../git/run-git';
import { git } from './app-host';

/** A watch event for a ConfigMap in namespace `shop`, authored by `username`. */
export function configMapEvent(name: string, username = 'alice', data: Record<string, string> = { name }) {
  return {
    type: 'MODIFIED',
    resource: 'configmaps',
    author: { username },
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data },
  };
}

/** Every `Kubescribe-Write` trailer on `branch`, newest first. */
export async function writeTrailers(remote: string, branch = 'main'): Promise<string[]> {
  const out = await git(remote, 'log', '--format=%(trailers:key=Kubescribe-Write,valueonly)', branch);
  return out.split('\n').filter(Boolean);
}

/** The files on `branch` (the YAML the app wrote, plus whatever else is there). */
export async function filesOn(remote: string, branch = 'main'): Promise<string[]> {
  return (await git(remote, 'ls-tree', '-r', '--name-only', branch)).split('\n').filter(Boolean);
}

/** `sha|subject` lines of `branch`, newest first. */
export async function history(remote: string, branch = 'main'): Promise<{ sha: string; subject: string }[]> {
  return (await git(remote, 'log', '--format=%H|%s', branch))
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha = '', ...rest] = line.split('|');
      return { sha, subject: rest.join('|') };
    });
}

/** Whether `branch` exists in the bare repository. */
export async function branchExists(remote: string, branch: string): Promise<boolean> {
  return (await git(remote, 'for-each-ref', `refs/heads/${branch}`)).trim() !== '';
}

/**
 * Waits, in real time, until `condition` holds (a bounded poll for a child process or socket,
 * never an assertion on wall time).
 */
export async function until(
  condition: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

/**
 * Another writer's commit on `branch`: cloned from the bare repository, committed with the `git`
 * CLI and pushed straight back to it, as a person working beside kubescribe would.
 */
export async function commitAsAnotherWriter(
  remote: string,
  branch: string,
  files: Record<string, string>,
  message: string,
): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'ks-other-writer-'));
  try {
    await runGit({ args: ['clone', '-q', '-b', branch, remote, work] });
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    await runGit({ args: ['add', '-A'], cwd: work });
    await runGit({ args: ['commit', '-q', '-m', message], cwd: work });
    await runGit({ args: ['push', '-q', 'origin', branch], cwd: work });
    return await runGit({ args: ['rev-parse', 'HEAD'], cwd: work });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

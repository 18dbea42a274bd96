/**
 * The scale benchmark's fair baseline for a resync: what a dump tool does with a cluster's
 * objects, run in a process of its own so its memory is not counted as the host's.
 *
 * katafygio (bpineau/katafygio, pkg/recorder/recorder.go and pkg/store/git/git.go) and kube-dump
 * write each object's YAML as a file of a working tree, then run `git add -A`, `git commit` and
 * `git push`. A resync writes every object's file again: kube-dump dumps the whole cluster each
 * run, and katafygio skips a file only when its in-memory checksum of the last write matches, a
 * memory a restarted process does not have. So every file is written, and `git add -A` re-reads
 * and hashes each one whose stat changed, which is all of them.
 *
 * Usage: dump-tool.ts <source git dir> <commit> <working tree> <push destination>
 * Writes the files of `commit`'s tree (read from the source beforehand, untimed) into the
 * working tree (created with `git init` on its first use), adds, commits and pushes `main` to the
 * destination (a local bare repository: the local transport, as kubescribe's own push there),
 * and prints JSON: the time of each step and of the whole, and the tree the commit holds (which
 * must be kubescribe's: the same files, byte for byte). Automatic `git gc` is off, which only
 * spares the baseline: after 100,000 new loose objects, `git commit` would start one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [source, commit, worktree, destination] = process.argv.slice(2);
if (!source || !commit || !worktree || !destination)
  throw new Error('usage: dump-tool.ts <source git dir> <commit> <working tree> <push destination>');

const git = (args: string[], input?: Buffer | string) =>
  execFileSync('git', args, { cwd: worktree, maxBuffer: 1 << 30, ...(input === undefined ? {} : { input }) });

/** Every file of the commit's tree and its bytes, as `git cat-file --batch` gives them. */
function filesOf(): { path: string; content: Buffer }[] {
  const listing = execFileSync('git', [`--git-dir=${source}`, 'ls-tree', '-r', '-z', commit!], {
    maxBuffer: 1 << 30,
  })
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { path: line.slice(tab + 1), oid: line.slice(0, tab).split(' ')[2]! };
    });
  const batch = execFileSync('git', [`--git-dir=${source}`, 'cat-file', '--batch'], {
    input: `${listing.map((file) => file.oid).join('\n')}\n`,
    maxBuffer: 1 << 30,
  });
  let at = 0;
  return listing.map(({ path }) => {
    const newline = batch.indexOf(0x0a, at);
    const size = Number(batch.toString('latin1', at, newline).split(' ')[2]);
    const content = batch.subarray(newline + 1, newline + 1 + size);
    at = newline + 1 + size + 1;
    return { path, content };
  });
}

const files = filesOf();
if (!existsSync(join(worktree, '.git'))) {
  mkdirSync(worktree, { recursive: true });
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.name', 'Dump Tool']);
  git(['config', 'user.email', 'dump@example.com']);
  git(['config', 'gc.auto', '0']);
}

const started = performance.now();
const folders = new Set<string>();
for (const { path, content } of files) {
  const folder = dirname(join(worktree, path));
  if (!folders.has(folder)) {
    mkdirSync(folder, { recursive: true });
    folders.add(folder);
  }
  writeFileSync(join(worktree, path), content);
}
const written = performance.now();
git(['add', '-A']);
const added = performance.now();
git(['commit', '-q', '-m', 'Kubernetes cluster change']);
const committed = performance.now();
git(['push', '-q', destination, 'main:main']);
const pushed = performance.now();

console.log(
  JSON.stringify({
    ms: pushed - started,
    writeMs: written - started,
    addMs: added - written,
    commitMs: committed - added,
    pushMs: pushed - committed,
    files: files.length,
    tree: git(['rev-parse', 'HEAD^{tree}']).toString('utf8').trim(),
  }),
);

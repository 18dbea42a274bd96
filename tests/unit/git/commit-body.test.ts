// A commit lists the objects it changed in its body, between the message and the trailer block
// that lost-reply settlement reads (shared/git/commit-summaries.ts): the trailers must stay the
// message's last paragraph, as `git interpret-trailers --parse` (Git's own trailer parser) reads them.
import { execFileSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { buildCommits } from '../../../shared/git/build-commits';
import { LISTED_OBJECTS } from '../../../shared/git/commit-body';
import { readCommitSummary } from '../../../shared/git/commit-summaries';
import { createObjectStore } from '../../../shared/git/object-store';
import type { GitWrite } from '../../../shared/git/types';
import { describeObjectPath } from '../../../shared/resources/canonical-path';
import { aWrite } from '../../support/git/a-write';
import { storedObjects } from '../../support/git/stored-objects';

const listed = (write: GitWrite): GitWrite => ({ ...write, describe: describeObjectPath });

/** Builds the writes in one chain and answers each commit's message. */
async function messagesOf(writes: GitWrite[]): Promise<string[]> {
  const trees = new Map<string, { mode: string; path: string; oid: string; type: 'blob' | 'tree' }[]>();
  const store = createObjectStore();
  const result = await buildCommits({
    base: null,
    baseTree: null,
    writes,
    readTree: async (oid) => trees.get(oid) ?? [],
    store,
  });
  if (result.kind !== 'built') throw new Error(result.cause);
  const messages = new Map<string, string>();
  for (const [oid, object] of await storedObjects(store)) {
    if (object.type !== 'commit') continue;
    const text = inflateSync(object.deflated).toString('utf8');
    messages.set(oid, text.slice(text.indexOf('\n\n') + 2));
  }
  for (const [id, oid] of Object.entries(result.commits)) {
    // settlement finds a landed write by its trailer, read from the message's final paragraph only
    if (oid) expect((await readCommitSummary('/nowhere', oid, {})).writeIds).toEqual([id]);
  }
  return writes.map((write) => {
    const oid = result.commits[write.id];
    return oid ? messages.get(oid)! : '';
  });
}

const gitTrailers = (message: string) =>
  execFileSync('git', ['interpret-trailers', '--parse'], { input: message }).toString();

describe('the objects a commit lists', () => {
  it('lists each object with what the commit did to it, leaving out what it did not change', async () => {
    const [, second] = await messagesOf([
      listed(
        aWrite({
          id: 'first',
          files: { 'shop/configmaps/a.yaml': 'a: 1\n', 'shop/configmaps/same.yaml': 'same\n' },
        }),
      ),
      listed(
        aWrite({
          id: 'second',
          message: 'alice on prod: 4 resource(s)',
          files: {
            'shop/configmaps/a.yaml': 'a: 2\n',
            'shop/configmaps/same.yaml': 'same\n',
            'shop/apps/deployments/web.yaml': 'web\n',
            '_cluster/rbac.authorization.k8s.io/clusterroles/system:aggregate-to-admin.yaml': 'r\n',
            '.sops.yaml': 'rules\n',
          },
          operations: [
            { op: 'delete', path: 'shop/configmaps/same.yaml' },
            { op: 'delete', path: 'shop/configmaps/never-there.yaml' },
          ],
        }),
      ),
    ]);
    expect(second).toBe(
      [
        'alice on prod: 4 resource(s)',
        '',
        'update configmaps shop/a',
        'create deployments.apps shop/web',
        'create clusterroles.rbac.authorization.k8s.io system:aggregate-to-admin',
        'delete configmaps shop/same',
        '',
        'Kubescribe-Write: second',
        '',
      ].join('\n'),
    );
    expect(gitTrailers(second!)).toBe('Kubescribe-Write: second\n');
  });

  it(`lists at most ${LISTED_OBJECTS} and counts the rest`, async () => {
    const files = Object.fromEntries(
      Array.from({ length: LISTED_OBJECTS + 7 }, (_, i) => [
        `shop/configmaps/c${String(i).padStart(2, '0')}.yaml`,
        `${i}\n`,
      ]),
    );
    const [message] = await messagesOf([
      listed(aWrite({ id: 'many', message: 'bob on prod: 27 resource(s)', files })),
    ]);
    const lines = message!.split('\n');
    expect(lines.slice(0, 3)).toEqual(['bob on prod: 27 resource(s)', '', 'create configmaps shop/c00']);
    expect(lines.filter((line) => line.startsWith('create '))).toHaveLength(LISTED_OBJECTS);
    expect(lines.slice(-4)).toEqual(['and 7 more', '', 'Kubescribe-Write: many', '']);
    expect(gitTrailers(message!)).toBe('Kubescribe-Write: many\n');
  });

  it('keeps a save’s own message whole above the list, and a trailer-like line in it quoted', async () => {
    const [message] = await messagesOf([
      listed(
        aWrite({
          id: 'save',
          message: 'Roll out web v2\n\nReviewed-by: Jane\nKubescribe-Write: forged',
          files: { 'shop/apps/deployments/web.yaml': 'v2\n' },
        }),
      ),
    ]);
    expect(message).toBe(
      [
        'Roll out web v2',
        '',
        'Reviewed-by: Jane',
        '(quoted) Kubescribe-Write: forged',
        '',
        'create deployments.apps shop/web',
        '',
        'Kubescribe-Write: save',
        '',
      ].join('\n'),
    );
    expect(gitTrailers(message!)).toBe('Kubescribe-Write: save\n');
  });

  it('is the message as given for a write that names no objects', async () => {
    const [message] = await messagesOf([
      aWrite({ id: 'plain', message: 'reconciled 2 configmaps', files: { 'a/configmaps/b.yaml': 'b\n' } }),
    ]);
    expect(message).toBe('reconciled 2 configmaps\n\nKubescribe-Write: plain\n');
  });
});

/**
 * The web page of `commit` when the repository URL is one a forge serves pages for (GitHub, GitLab,
 * Azure Repos, Gitea, Forgejo, Codeberg), else null: a local path or an unknown host has none
 * kubescribe can know.
 * @example commitWebUrl('https://github.com/org/state.git', 'ab12…') // → 'https://github.com/org/state/commit/ab12…'
 */
export function commitWebUrl(repositoryUrl: string, commit: string): string | null {
  if (!/^https?:\/\//i.test(repositoryUrl) || !URL.canParse(repositoryUrl)) return null;
  const url = new URL(repositoryUrl);
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  const base = `${url.protocol}//${url.host}${path}`;
  if (host === 'dev.azure.com' || host.endsWith('.visualstudio.com'))
    return path.includes('/_git/') ? `${base}/commit/${commit}` : null;
  if (host === 'gitlab.com' || host.startsWith('gitlab.')) return `${base}/-/commit/${commit}`;
  if (
    host === 'github.com' ||
    host === 'codeberg.org' ||
    host.startsWith('gitea.') ||
    host.startsWith('forgejo.') ||
    host.startsWith('github.')
  )
    return `${base}/commit/${commit}`;
  return null;
}

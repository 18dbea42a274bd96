import { GitHttpRefused } from '../errors';
import type { Forge } from './forge';

/**
 * Statuses with which hosts refuse a second open pull request for the same branches: GitHub 422
 * "A pull request already exists", GitLab 409 "Another open merge request already exists", Azure
 * Repos 409 TF401179, Gitea 409.
 */
const ALREADY_EXISTS = new Set([409, 422]);

/**
 * `forge` whose `open` finds the pull request it is refused for because one is already open (the
 * reply to an earlier `open` was lost, or a person opened one from the same branch) and brings its
 * text up to date, so a retried call never opens a second pull request nor fails for the first one.
 */
export function adoptingExisting(forge: Forge): Forge {
  return {
    kind: forge.kind,
    findOpen: (head, base) => forge.findOpen(head, base),
    update: (number, text) => forge.update(number, text),
    read: (number) => forge.read(number),
    async open(head, base, text) {
      try {
        return await forge.open(head, base, text);
      } catch (error) {
        if (!(error instanceof GitHttpRefused) || !ALREADY_EXISTS.has(error.data.status)) throw error;
        const existing = await forge.findOpen(head, base);
        if (!existing) throw error;
        return forge.update(existing.number, text);
      }
    },
  };
}

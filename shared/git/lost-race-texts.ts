/**
 * What each Git host says when a push lost the compare-and-swap to another writer, in ONE table.
 * A text here makes a push `moved` at once; a push refused with any other text is still checked
 * against the branch itself (`publish.ts`), so a host with new wording is not read as a permanent
 * refusal: this table only spares that check its doubt.
 */
export const LOST_RACE_TEXTS: readonly { host: string; pattern: RegExp }[] = [
  { host: 'git (receive-pack)', pattern: /failed to update ref/i },
  { host: 'git (receive-pack)', pattern: /failed to lock/i },
  { host: 'git (receive-pack), GitHub', pattern: /cannot lock ref/i },
  { host: 'git (receive-pack)', pattern: /reference already exists/i },
  { host: 'git 2.51+ (batched ref updates)', pattern: /incorrect old value provided/i },
  { host: 'git 2.51+ (batched ref updates)', pattern: /reference does not exist/i },
  { host: 'git: built on a base the server no longer has', pattern: /missing necessary objects/i },
  { host: 'git client wording', pattern: /stale info|fetch first|non-fast-forward/i },
  { host: 'Azure Repos', pattern: /TF401028/ },
  { host: 'Azure Repos', pattern: /already been updated by another client/i },
  { host: 'GitLab', pattern: /could not be updated because it was changed by another/i },
];

/** True when `text` is a known way of saying "another writer moved the branch". */
export function isLostRaceText(text: string): boolean {
  return LOST_RACE_TEXTS.some(({ pattern }) => pattern.test(text));
}

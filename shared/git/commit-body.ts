/** What a commit did to one object's file, as its body lists it. */
export type ObjectChange = { verb: 'create' | 'update' | 'delete'; object: string };

/** The most objects a body lists; the rest are counted in a last line, `and N more`. */
export const LISTED_OBJECTS = 20;

/**
 * The message with a body listing the objects the commit changed, one line each
 * (`update deployments.apps shop/web`), after the message and before the trailers formatCommit
 * appends. The message's own text (a save's, with its own body) stays first and whole.
 */
export function withObjectList(message: string, changes: readonly ObjectChange[]): string {
  if (changes.length === 0) return message;
  const lines = changes.slice(0, LISTED_OBJECTS).map(({ verb, object }) => `${verb} ${object}`);
  if (changes.length > LISTED_OBJECTS) lines.push(`and ${changes.length - LISTED_OBJECTS} more`);
  return `${message.replace(/\s+$/, '')}\n\n${lines.join('\n')}`;
}

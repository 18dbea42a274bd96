import { randomBytes } from 'node:crypto';

/** `n` files of about 1 KiB that hardly compress, over 20 folders: their packs weigh about what the files do. */
export const incompressibleFiles = (n: number): Record<string, string> =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `ns${i % 20}/cm-${i}.yaml`,
      `data: ${randomBytes(500).toString('hex')}\n`,
    ]),
  );

import { readdir, readlink } from 'node:fs/promises';

/**
 * The object stores' spill files this process holds open under `folder`, as Linux lists a process's
 * open files: an unlinked file's link reads as its old path with " (deleted)", and opening the link
 * (`/proc/self/fd/<fd>`) reads the file.
 */
export async function openSpillFiles(folder: string): Promise<{ fd: string; path: string }[]> {
  const open: { fd: string; path: string }[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const path = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (path.startsWith(folder) && path.includes('kubescribe-spill-')) open.push({ fd, path });
  }
  return open;
}

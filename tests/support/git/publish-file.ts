import { publish } from '../../../shared/git/publish';
import { aWrite } from './a-write';

/** Publishes one write putting `file` (its own name and a newline as its content) on `main` of the remote at `url`. */
export const publishFile = ({ url, cacheDir, file }: { url: string; cacheDir: string; file: string }) =>
  publish({
    remote: { kind: 'http', url },
    branch: 'main',
    writes: [aWrite({ files: { [file]: `${file}\n` } })],
    cacheDir,
  });

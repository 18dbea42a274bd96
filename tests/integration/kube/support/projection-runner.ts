/**
 * Runs `projectSaveStatus` with its production client (@kubernetes/client-node) in a plain Node
 * process, compiled by tsc exactly as the app is: jest's CommonJS runtime cannot load the ESM-only
 * client. Reads one JSON request per line on stdin, answers one JSON line per request on stdout.
 */
import { createInterface } from 'node:readline';
import { projectSaveStatus } from '../../../../shared/kube/project-save-status';

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { id, args } = JSON.parse(line) as { id: number; args: Parameters<typeof projectSaveStatus>[0] };
  projectSaveStatus(args).then(
    (result) => process.stdout.write(`${JSON.stringify({ id, result })}\n`),
    (error: unknown) => {
      const thrown =
        error instanceof Error
          ? { name: error.name, message: error.message }
          : { name: 'Unknown', message: String(error) };
      process.stdout.write(`${JSON.stringify({ id, thrown })}\n`);
    },
  );
});

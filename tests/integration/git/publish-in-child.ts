// Runs one publication in its own process (argv[2] = JSON input), so a test can kill it mid-way.
import { publish } from '../../../shared/git/publish';

const input = JSON.parse(process.argv[2] ?? '{}');
publish(input).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`));

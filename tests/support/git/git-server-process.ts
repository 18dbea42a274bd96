// Child-process entry of startGitServer: serves argv[2] (the root), auth from KUBESCRIBE_TEST_GIT_AUTH,
// prints the URL on stdout, stops on SIGTERM or when the parent goes away.
import { serveGitHttp } from './serve-git-http';

const root = process.argv[2];
if (!root) throw new Error('usage: gitServerProcess <root>');
const auth = process.env.KUBESCRIBE_TEST_GIT_AUTH
  ? JSON.parse(process.env.KUBESCRIBE_TEST_GIT_AUTH)
  : undefined;
serveGitHttp({ root, auth }).then((server) => {
  process.stdout.write(`${server.url}\n`);
  const stop = () => server.stop().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('disconnect', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
});

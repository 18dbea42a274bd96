#!/usr/bin/env node
// The package's command: runs the compiled CLI (`npm run build` writes dist/).

const path = require('node:path');

let cli;
try {
  cli = require(path.join(__dirname, '..', 'dist', 'shared', 'forwarder', 'cli.js'));
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND') {
    process.stderr.write('kubescribe: the CLI is not built; run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
}

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => controller.abort());

cli
  .main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    signal: controller.signal,
  })
  .then((code) => {
    process.exitCode = code;
  });

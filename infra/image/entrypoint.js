#!/usr/bin/env node
// The image's entrypoint (/app/entrypoint.js): one image, two commands.
//   serve            the app on the embedded host (`npm start` without the build): the default
//   forward [flags]  the forwarder, and any other kubescribe command (`kubescribe --help`)
// Either runs in this process, so signals (SIGTERM from the kubelet) reach it directly.

const Module = require('node:module');
const path = require('node:path');

const [command, ...rest] = process.argv.slice(2);
const script =
  command === 'serve' || command === undefined
    ? path.join(__dirname, 'dist', 'functions', 'local', 'start.js')
    : path.join(__dirname, 'bin', 'kubescribe.js');
const args = command === 'serve' || command === undefined ? rest : [command, ...rest];

// As if started as `node <script> <args>`: the script sees itself as the main module and its own argv.
process.argv = [process.argv[0], script, ...args];
Module.runMain();

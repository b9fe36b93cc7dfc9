#!/usr/bin/env node
// `selfscan-check`: the entry of the zero-dependency package
// (packages/selfscan-check), bundled into one file by scripts/build-check.mjs.
import { runCheck } from './run-check.js';

process.exitCode = await runCheck(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }, 'selfscan-check');

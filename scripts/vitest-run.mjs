// One vitest run with its JSON results read back: what scripts/test.mjs adds
// into its closing line, for its main run and for each node leg
// (scripts/node-legs.mjs). The run's own output goes to the terminal.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const require = createRequire(import.meta.url);
const vitestPackage = require.resolve('vitest/package.json');
/** vitest's own command, run by whichever node is asked to. */
const VITEST = join(dirname(vitestPackage), require(vitestPackage).bin.vitest);

/**
 * @typedef {object} VitestCounts
 * @property {boolean} ran whether vitest wrote its results
 * @property {number} passed
 * @property {number} failed
 * @property {number} skipped skipped and todo tests
 * @property {boolean} ok vitest exited 0, no test failed and at least one ran
 * @property {number|string|null} status vitest's exit status or signal
 * @property {number} seconds wall time of the run
 * @property {string[]} failures "file > test" of each failed test
 */

/**
 * Runs `vitest run ARGS` under `node` (this process's by default) with
 * `env`, reporting to the terminal and as JSON into `resultsFile`.
 * @returns {VitestCounts}
 */
export function runVitest(args, { resultsFile, node = process.execPath, env = process.env }) {
  rmSync(resultsFile, { force: true });
  const started = Date.now();
  const run = spawnSync(node, [VITEST, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...args], {
    stdio: 'inherit',
    env,
  });
  const seconds = (Date.now() - started) / 1000;
  const status = run.status ?? run.signal;
  if (!existsSync(resultsFile)) return { ran: false, passed: 0, failed: 0, skipped: 0, ok: false, status, seconds, failures: [] };
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  return {
    ran: true,
    passed: results.numPassedTests,
    failed: results.numFailedTests,
    skipped: results.numPendingTests + results.numTodoTests,
    ok: run.status === 0 && results.numFailedTests === 0 && results.numTotalTests > 0,
    status,
    seconds,
    failures: failedTests(results),
  };
}

/** Longest part of a failure's message kept in the closing lines. */
const MESSAGE_CHARS = 300;

/** The first line of a failure's message, without terminal colours: what a log's last lines can show of why. */
function firstLine(message) {
  const line = stripVTControlCharacters(message).split('\n')[0].trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS)}…` : line;
}

/**
 * The failed tests of vitest's JSON results, named "file > test: the first
 * line of its failure", and each file that failed without a failed test
 * (it did not load, or a hook threw).
 */
export function failedTests(results, root = process.cwd()) {
  return results.testResults.flatMap((file) => {
    const name = relative(root, file.name);
    const tests = file.assertionResults
      .filter((test) => test.status === 'failed')
      .map((test) => {
        const [message] = test.failureMessages ?? [];
        return message === undefined ? `${name} > ${test.fullName}` : `${name} > ${test.fullName}: ${firstLine(message)}`;
      });
    return tests.length === 0 && file.status === 'failed' ? [`${name} (${file.message || 'failed'})`] : tests;
  });
}

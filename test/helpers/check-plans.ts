// What the check client's pure-logic tests share: `selfscan check ARGS`
// made into a plan (against a fixed server), the usage error some ARGS
// must give, and policy files written into a directory of the test file's
// own, removed after its tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll } from 'vitest';

import { type CheckPlan, parseCheckArgs } from '../../src/client/check-options.js';
import { UsageError } from '../../src/client/usage-error.js';

/** The plan of `selfscan check --server https://selfscan.example.org ARGS`. */
export function plan(...args: string[]): CheckPlan {
  const parsed = parseCheckArgs(['--server', 'https://selfscan.example.org', ...args], {});
  if (parsed === 'help') throw new Error('help');
  return parsed;
}

/** The message of the usage error ARGS give; throws when they give none. */
export function usageError(...args: string[]): string {
  try {
    plan(...args);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`no usage error for ${args.join(' ')}`);
}

/** Writes policy files into a fresh directory (its name starting with `prefix`) that goes after the file's tests. */
export function policyFiles(prefix: string): (json: object) => string {
  const work = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return (json) => {
    const path = join(work, `policy-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, `${JSON.stringify(json, null, 2)}\n`);
    return path;
  };
}

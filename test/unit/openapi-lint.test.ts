// The served OpenAPI document passes `redocly lint` (recommended ruleset,
// redocly.yaml) with no error and no warning. Offline: the CLI runs from
// node_modules with its telemetry and update check off.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

import { expect, it } from 'vitest';

import { openApiJson } from '../../src/api/openapi.js';

const ROOT = join(import.meta.dirname, '../..');
const REDOCLY = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

it('passes redocly lint with 0 errors and 0 warnings', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, openApiJson);
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const args = [REDOCLY, 'lint', file, '--format', 'json', '--config', join(ROOT, 'redocly.yaml')];
    // Exits non-zero when there are errors; the report on stdout is what is checked.
    const { stdout } = await promisify(execFile)(process.execPath, args, { env, cwd: ROOT }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(stdout) as LintReport;
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

// `selfscan check ARGS` from start to exit code: the plan, the scan with
// its progress, the outcome, and every report asked for, all from one scan.
import { writeFileSync } from 'node:fs';

import type { ScanResultFinal } from '../api/scan-result.js';
import { CheckError } from './check-error.js';
import { checkHelp } from './check-help.js';
import { type CheckPlan, parseCheckArgs, type ReportFormat } from './check-options.js';
import { type CheckOutcome, outcomeOf } from './check-outcome.js';
import { ProgressView, progressMode } from './progress.js';
import { jsonReport } from './report-json.js';
import { junitReport } from './report-junit.js';
import { sarifReport } from './report-sarif.js';
import { textReport } from './report-text.js';
import { runScan } from './scan-client.js';
import { SCANNED_PORTS } from './scan-protocol.js';
import { UsageError } from './usage-error.js';

/** Where a run writes, and what it reads from its environment. */
export interface CheckIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Whether the text report on stdout may be coloured. */
function colourOn(io: CheckIo): boolean {
  return io.stdout.isTTY === true && (io.env.NO_COLOR ?? '') === '' && io.env.TERM !== 'dumb';
}

function render(format: ReportFormat, outcome: CheckOutcome, colour: boolean): string {
  if (format === 'text') return textReport(outcome, colour);
  if (format === 'json') return jsonReport(outcome);
  return format === 'junit' ? junitReport(outcome) : sarifReport(outcome);
}

async function scan(plan: CheckPlan, io: CheckIo, command: string): Promise<{ result: ScanResultFinal | null; error: CheckError | null }> {
  const view = new ProgressView(progressMode(io.stderr.isTTY === true, io.env, plan.progress), io.stderr, SCANNED_PORTS[plan.scanType].length, command);
  try {
    const result = await runScan({
      server: plan.server,
      scanType: plan.scanType,
      regions: plan.regions,
      family: plan.family,
      localAddress: plan.localAddress,
      signal: AbortSignal.timeout(plan.timeoutMs),
      deadline: Date.now() + plan.timeoutMs,
      timeoutSeconds: plan.timeoutMs / 1000,
      waitRateLimit: plan.waitRateLimit,
      onProgress: (progress) => view.update(progress),
      onNote: (text) => view.note(`${command}: ${text}`),
    });
    return { result, error: null };
  } catch (error) {
    if (error instanceof CheckError) return { result: null, error };
    throw error;
  } finally {
    view.finish();
  }
}

/**
 * Runs `command ARGS` (`selfscan check` or `selfscan-check`); resolves the
 * exit code. A bug surfaces as exit 2 with its stack, never as 1 (a check failed).
 */
export async function runCheck(args: string[], io: CheckIo, command = 'selfscan check'): Promise<0 | 1 | 2> {
  try {
    return await check(args, io, command);
  } catch (error) {
    io.stderr.write(`${command}: internal error: ${(error as Error).stack ?? String(error)}\n`);
    return 2;
  }
}

async function check(args: string[], io: CheckIo, command: string): Promise<0 | 1 | 2> {
  let plan: CheckPlan | 'help';
  try {
    plan = parseCheckArgs(args, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`${command}: ${error.message}\n(${command} --help shows the options)\n`);
    return 2;
  }
  if (plan === 'help') {
    io.stdout.write(checkHelp(command));
    return 0;
  }
  const startedAt = new Date();
  const { result, error } = await scan(plan, io, command);
  const outcome = outcomeOf(plan, result, error, startedAt);
  const colour = colourOn(io);
  let exitCode = outcome.exitCode;
  for (const target of plan.reports) {
    const text = render(target.format, outcome, colour && target.path === null);
    if (target.path === null) {
      io.stdout.write(text);
      continue;
    }
    try {
      writeFileSync(target.path, text);
    } catch (writeError) {
      io.stderr.write(`${command}: cannot write the ${target.format} report: ${(writeError as Error).message}\n`);
      exitCode = 2;
    }
  }
  const textOnStdout = plan.reports.some((target) => target.format === 'text' && target.path === null);
  if (outcome.error !== null && !textOnStdout) io.stderr.write(`${command}: ${outcome.error.message}\n`);
  return exitCode;
}

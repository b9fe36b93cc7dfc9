// A run's outcome, the one thing every report is written from: the plan,
// the scan's result (if any), the checks, the error that kept it from
// deciding (if any), the verdict and its exit code.
import type { ScanResultFinal } from '../api/scan-result.js';
import { CheckError } from './check-error.js';
import type { CheckPlan } from './check-options.js';
import { type Check, evaluate, isAssessed, type Verdict } from './checks.js';
import { protocolOf } from './scan-protocol.js';
import { udpAnswers } from './udp-answers.js';

/** Everything a report needs. */
export interface CheckOutcome {
  plan: CheckPlan;
  result: ScanResultFinal | null;
  checks: Check[];
  error: CheckError | null;
  verdict: Verdict;
  exitCode: 0 | 1 | 2;
  startedAt: Date;
  durationMs: number;
}

/** The exit code of each verdict. */
const EXIT_CODES: Readonly<Record<Verdict, 0 | 1 | 2>> = { pass: 0, fail: 1, error: 2 };

/** The outcome of a run whose scan ended with `result`, or could not run (`scanError`). */
export function outcomeOf(plan: CheckPlan, result: ScanResultFinal | null, scanError: CheckError | null, startedAt: Date): CheckOutcome {
  const onlyOpen = { on: plan.onlyOpen, from: plan.policy?.onlyOpen === plan.onlyOpen && plan.policy !== undefined ? 'policy' : 'flag' } as const;
  const checks = evaluate(result, {
    protocol: protocolOf(plan.scanType),
    expectations: plan.expectations,
    onlyOpen,
    maxSeverity: plan.maxSeverity,
    certMinDays: plan.certMinDays,
    maxAmplification: plan.maxAmplification,
    sameEverywhere: plan.sameEverywhere,
  });
  let error = scanError;
  if (result?.status === 'failed') error = new CheckError('scan_failed', `the scan failed: ${result.fail_reason}`);
  else if (result?.status === 'incomplete' && !plan.allowIncomplete)
    error = new CheckError('incomplete', 'the scan ended incomplete (the host was too slow or too filtered); pass --allow-incomplete to judge what it found');
  else if (result !== null && !isAssessed(result) && (plan.maxSeverity !== undefined || plan.certMinDays !== undefined))
    error = new CheckError(
      'unassessed',
      'the server reported no severities or certificates (it predates interface 1.1, or its operator turned facts off): --max-severity and --cert-min-days cannot be judged',
    );
  else if (result !== null && plan.maxAmplification !== undefined && udpAnswers(result) === null)
    error = new CheckError(
      'unassessed',
      'the server reported no udp facts (the bytes each open UDP port was sent and answered): --max-amplification cannot be judged',
    );
  // A server before interface 1.2 ignores `regions` and scans from one place: that is not what was asked.
  else if (result !== null && plan.regions !== undefined && result.vantages === undefined)
    error = new CheckError(
      'unassessed',
      `the server scanned from one place and sent no view of each region (it predates interface 1.2): --regions ${plan.regions} was not honoured`,
    );
  const verdict: Verdict = error !== null ? 'error' : checks.some((check) => check.outcome === 'fail') ? 'fail' : 'pass';
  return { plan, result, checks, error, verdict, exitCode: EXIT_CODES[verdict], startedAt, durationMs: Date.now() - startedAt.getTime() };
}

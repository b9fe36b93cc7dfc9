// The json report: a stable shape for scripts (README documents it). The
// `result` is the server's own result body, unchanged: its `severity` and
// `changes` (since interface 1.1) are the scan's highest severity and what
// changed since the last scan.
import type { CheckOutcome } from './check-outcome.js';

/** The version of this shape; a change that breaks readers changes it. */
const JSON_REPORT_FORMAT = 'selfscan-check/1';

/** The json report of `outcome`. */
export function jsonReport(outcome: CheckOutcome): string {
  const { plan, result, checks, error } = outcome;
  return `${JSON.stringify(
    {
      format: JSON_REPORT_FORMAT,
      server: plan.server.href,
      scan_type: plan.scanType,
      started_at: outcome.startedAt.toISOString(),
      duration_ms: outcome.durationMs,
      verdict: outcome.verdict,
      exit_code: outcome.exitCode,
      error: error === null ? null : { kind: error.kind, message: error.message },
      checks: checks.map((check) => ({
        rule: check.rule,
        port: check.port ?? null,
        state: check.state,
        outcome: check.outcome,
        message: check.message,
        from: check.from,
        severity: check.severity ?? null,
      })),
      result,
    },
    null,
    2,
  )}\n`;
}

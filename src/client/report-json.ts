// The json report: a stable shape for scripts (README documents it). The
// `result` is the server's own result body, unchanged: its `severity` and
// `changes` (since interface 1.1) are the scan's highest severity and what
// changed since the last scan. `regions` sums up a multi-region scan for
// scripts: what was asked, each region's status and ports, the ports seen
// differently.
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
      regions: regionsSummary(outcome),
      result,
    },
    null,
    2,
  )}\n`;
}

/** What --regions asked and what each region saw; null for a scan from one place. */
function regionsSummary({ plan, result }: CheckOutcome): object | null {
  if (plan.regions === undefined) return null;
  const portsOf = (ports: readonly { port: number }[]): number[] => ports.map((port) => port.port);
  return {
    asked: plan.regions,
    vantages:
      result?.vantages?.map((vantage) => ({
        region: vantage.region,
        status: vantage.status,
        fail_reason: vantage.fail_reason ?? null,
        ports_open: portsOf(vantage.ports_open),
        ports_filtered: portsOf(vantage.ports_filtered),
      })) ?? null,
    differences: result?.differences ?? null,
  };
}

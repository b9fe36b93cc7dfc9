// The severity levels of an exposure, without zod: the check client
// (src/client/) ranks and reports them and loads nothing but node:
// built-ins. port-facts.ts builds the wire enum from this list.

/** From worst to mildest. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type SeverityLevel = (typeof SEVERITIES)[number];

/** How bad `level` is: info 0 … critical 4. */
export function severityRank(level: SeverityLevel): number {
  return SEVERITIES.length - 1 - SEVERITIES.indexOf(level);
}

/** The worst of `levels`; null when there are none. */
export function highestSeverity(levels: Iterable<SeverityLevel>): SeverityLevel | null {
  let worst: SeverityLevel | null = null;
  for (const level of levels) if (worst === null || severityRank(level) > severityRank(worst)) worst = level;
  return worst;
}

/** Whether `text` names a level. */
export function isSeverityLevel(text: string): text is SeverityLevel {
  return (SEVERITIES as readonly string[]).includes(text);
}

/**
 * SARIF's `security-severity` of each level (a CVSS-like score as GitHub
 * code scanning reads it: ≥ 9 critical, ≥ 7 high, ≥ 4 medium, > 0 low).
 */
export const SECURITY_SEVERITY_SCORE: Readonly<Record<SeverityLevel, string>> = Object.freeze({
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: '0.0',
});

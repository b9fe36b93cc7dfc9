// Why `selfscan check` could not decide: the server could not be reached,
// answered an HTTP error or 429, the scan failed or ended incomplete, time
// ran out, or a limit or regions were asked of a server that cannot answer
// them (no facts; scans from one place). Each is exit code 2, and outranks any finding.

/** What kind of failure to decide. */
export type CheckErrorKind = 'unreachable' | 'http' | 'rate_limited' | 'timeout' | 'scan_failed' | 'incomplete' | 'unassessed';

/** The run could not reach a verdict; `message` says why, for people. */
export class CheckError extends Error {
  override name = 'CheckError';
  constructor(
    readonly kind: CheckErrorKind,
    message: string,
  ) {
    super(message);
  }
}

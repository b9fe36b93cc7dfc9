// Which callers may be scanned: only global unicast addresses, unless the
// operator lets private targets through for local trials and tests.
import ipaddr from 'ipaddr.js';

export interface TargetPolicyOptions {
  allowPrivateTargets: boolean;
}

/** Null when `ip` may be scanned, else why not (for a 422 invalid_target). */
export function refuseTarget(ip: string, options: TargetPolicyOptions): string | null {
  if (options.allowPrivateTargets) return null;
  const range = ipaddr.parse(ip).range();
  return range === 'unicast' ? null : `${ip} is not a publicly routable address (${range})`;
}

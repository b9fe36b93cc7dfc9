// Which callers may be scanned: publicly routable addresses only (see
// net/routability), unless the operator lets private targets through for
// local trials and tests.
import { parseIp } from '../net/ip-address.js';
import { unroutableReason } from '../net/routability.js';

export interface TargetPolicyOptions {
  allowPrivateTargets: boolean;
}

/** Null when `ip` may be scanned, else why not (for a 422 invalid_target). Throws when `ip` is not an address. */
export function refuseTarget(ip: string, options: TargetPolicyOptions): string | null {
  if (options.allowPrivateTargets) return null;
  const why = unroutableReason(parseIp(ip));
  return why === null ? null : `${ip} is not a publicly routable address (${why})`;
}

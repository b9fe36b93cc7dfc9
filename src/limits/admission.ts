// The abuse controls in the order the service applies them to a start:
// edge limit (every request) -> target policy -> opt-out -> webhook limit
// (a POST with X-Callback-Url) -> [coalescing, in the scan book] -> scan
// limits -> start. One instance serves v1, v2 and MCP alike, so every start
// path shares the same counters. Per-IP limits count an IPv6 caller by its
// prefix (limit-key.ts).
import type { Logger } from 'pino';

import { ApiError } from '../api/api-error.js';
import type { ScanType } from '../api/scan-type.js';
import type { Config } from '../config/config.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../model/clock.js';
import type { ScanOrigin } from '../model/scan-record.js';
import { type AsnLookup, rateLimitBucket } from './asn/asn-lookup.js';
import type { RateDecision, RateRule } from './rate/gcra.js';
import { perIpLimitKeys } from './rate/limit-key.js';
import type { RateCharge, RateLimitStore } from './rate/rate-limit-store.js';
import type { ScanAdmit } from './rate/scan-admit.js';
import { Refusal } from './refusal.js';
import { refuseTarget } from './target-policy.js';

export interface AdmissionOptions {
  limits: Config['limits'];
  store: RateLimitStore;
  optOut: { has(ip: string): boolean };
  asn: AsnLookup;
  allowPrivateTargets: boolean;
  clock: Clock;
  logger: Logger;
  /** Counts refusals by scope; absent: nothing counted. */
  metrics?: Pick<Metrics, 'refused'>;
}

const active = (rule: RateRule): boolean => rule.max > 0;

export class Admission {
  private readonly log: Logger;
  /** Whom the per-IP limits count for an address. */
  private readonly perIp: (ip: string) => string;

  constructor(private readonly options: AdmissionOptions) {
    this.log = options.logger;
    this.perIp = perIpLimitKeys(options.limits.ipv6PrefixLength);
  }

  /** Whether the edge limit is on (`max` above 0). */
  get edgeLimited(): boolean {
    return active(this.options.limits.edge);
  }

  /**
   * Charges one request of `ip` to the edge limit. Resolves with the edge
   * decision (for the X-RateLimit-* headers), null when the limit is off;
   * rejects with a Refusal when the IP is over it.
   */
  async edge(ip: string): Promise<RateDecision | null> {
    const rule = this.options.limits.edge;
    if (!active(rule)) return null;
    const caller = this.perIp(ip);
    const [decision] = await this.options.store.charge([{ key: `edge|${caller}`, rule }], this.options.clock.now());
    if (!decision!.allowed) {
      this.log.info({ event: 'request_refused', ip, error: 'rate_limited', limit: 'edge', retryAfter: decision!.retryAfter }, 'edge rate limit');
      this.options.metrics?.refused('edge', 'rate_limited');
      throw new Refusal(
        'rate_limited',
        `more than ${rule.max} requests in ${rule.windowSeconds} s from ${caller}; retry in ${decision!.retryAfter} s`,
        decision,
      );
    }
    return decision!;
  }

  /**
   * Charges one webhook registration of `ip` (a POST with X-Callback-Url)
   * before anything starts; throws a Refusal when the IP is over the limit.
   */
  async admitWebhook(ip: string, scanType: ScanType, origin: ScanOrigin): Promise<void> {
    const rule = this.options.limits.webhooksPerIp;
    if (!active(rule)) return;
    const caller = this.perIp(ip);
    const [decision] = await this.options.store.charge([{ key: `webhook|${caller}`, rule }], this.options.clock.now());
    if (!decision!.allowed) {
      const reason = `webhook registrations are limited to ${rule.max} per ${rule.windowSeconds} s for ${caller}; retry in ${decision!.retryAfter} s`;
      this.refuse(new Refusal('rate_limited', reason, decision), ip, scanType, origin, { limit: 'webhooksPerIp' });
    }
  }

  /** Target policy, then opt-out: throws a Refusal for a caller that may not be scanned. */
  checkTarget(ip: string, scanType: ScanType, origin: ScanOrigin): void {
    const invalid = refuseTarget(ip, { allowPrivateTargets: this.options.allowPrivateTargets });
    if (invalid !== null) this.refuse(new Refusal('invalid_target', invalid), ip, scanType, origin, { limit: 'target' });
    if (this.options.optOut.has(ip)) {
      this.refuse(new Refusal('not_available', `scans of ${ip} are not available (opted out or restricted)`), ip, scanType, origin, { limit: 'optOut' });
    }
  }

  /**
   * The scan limits a new scan of `ip` is charged, and how their decisions
   * are judged. A scan from `scans` regions is charged as that many scans,
   * all or none: each limit's allowance is spent `scans` times at once
   * (a GCRA step `scans` intervals long), so Retry-After says when all fit.
   */
  admitScan(ip: string, scanType: ScanType, origin: ScanOrigin, scans = 1): ScanAdmit {
    const { limits, store, clock } = this.options;
    const asn = this.options.asn.asnOf(ip);
    const bucket = rateLimitBucket(ip, asn);
    const caller = this.perIp(ip);
    const named: [string, RateCharge][] =
      scanType === 'fast'
        ? [['fastPerAsn', { key: `fast|${bucket}`, rule: limits.fastPerAsn }]]
        : scanType === 'deep'
          ? [
              ['deepPerIp', { key: `deep|${caller}`, rule: limits.deepPerIp }],
              ['deepPerAsn', { key: `deep|${bucket}`, rule: limits.deepPerAsn }],
            ]
          : [
              ['udpPerIp', { key: `udp|${caller}`, rule: limits.udpPerIp }],
              ['udpPerAsn', { key: `udp|${bucket}`, rule: limits.udpPerAsn }],
            ];
    const charged = named.filter(([, charge]) => active(charge.rule));
    const tooMany = charged.find(([, { rule }]) => scans > rule.max);
    if (tooMany !== undefined) {
      // Never admissible, however long the caller waits: no Retry-After to promise.
      const [name, { rule }] = tooMany;
      const reason = `a ${scanType} scan from ${scans} regions counts as ${scans} scans, more than the ${rule.max} per ${rule.windowSeconds} s this server allows; ask for at most ${rule.max} regions`;
      this.refuse(new ApiError('invalid_regions', reason), ip, scanType, origin, { limit: name, scans });
    }
    const spent = (rule: RateRule): RateRule => (scans === 1 ? rule : { ...rule, max: rule.max / scans });
    const judge = (decisions: readonly RateDecision[]): void => {
      const refused = decisions.findIndex((d) => !d.allowed);
      if (refused >= 0) {
        const [name, { rule }] = charged[refused]!;
        const decision = decisions[refused]!;
        const scope = name.endsWith('Asn') ? bucket : caller;
        const regions = scans === 1 ? '' : ` (a scan from ${scans} regions counts as ${scans})`;
        const reason = `${scanType} scans are limited to ${rule.max} per ${rule.windowSeconds} s for ${scope}${regions}; retry in ${decision.retryAfter} s`;
        this.refuse(new Refusal('rate_limited', reason, { ...decision, limit: rule.max }), ip, scanType, origin, { asn, limit: name, scans });
      }
      this.log.info({ event: 'scan_admitted', ip, asn, bucket, scanType, origin, scans }, 'scan admitted');
    };
    const charges = charged.map(([, { key, rule }]) => ({ key, rule: spent(rule) }));
    return { charges, judge, charge: async () => judge(await store.charge(charges, clock.now())) };
  }

  /** Logs and counts a refusal; `extra.limit` names the limit or rule that refused (the metric's scope). */
  private refuse(refusal: ApiError, ip: string, scanType: ScanType, origin: ScanOrigin, extra: { limit: string; [field: string]: unknown }): never {
    this.log.info({ event: 'scan_refused', ip, scanType, origin, error: refusal.code, ...extra }, refusal.reason);
    this.options.metrics?.refused(extra.limit, refusal.code);
    throw refusal;
  }
}

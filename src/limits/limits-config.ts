// The rate limits of the interface (spec section 8), each overridable in
// the config file under `limits`; `max: 0` turns one off.
import type { RateRule } from './gcra.js';

export interface LimitsConfig {
  /** Every request of an IP. */
  edge: RateRule;
  /** Fast scans started from one ASN. */
  fastPerAsn: RateRule;
  /** Deep scans started by one IP. */
  deepPerIp: RateRule;
  /** Deep scans started from one ASN. */
  deepPerAsn: RateRule;
}

export const DEFAULT_LIMITS: LimitsConfig = {
  edge: { max: 30, windowSeconds: 60 },
  fastPerAsn: { max: 2000, windowSeconds: 3600 },
  deepPerIp: { max: 1, windowSeconds: 300 },
  deepPerAsn: { max: 200, windowSeconds: 3600 },
};

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as (keyof LimitsConfig)[];

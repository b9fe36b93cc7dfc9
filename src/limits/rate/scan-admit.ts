// The scan limits a new scan is charged, handed to whoever starts it: one
// process charges them in its rate-limit store; a cluster charges them in
// the same atomic step that records the scan.
import type { RateDecision } from './gcra.js';
import type { RateCharge } from './rate-limit-store.js';

export interface ScanAdmit {
  /** The limits to charge, all or none. */
  readonly charges: readonly RateCharge[];
  /** Throws the refusal when one of `decisions` (one per charge) refuses; logs the admission otherwise. */
  judge(decisions: readonly RateDecision[]): void;
  /** Charges the rate-limit store and judges its decisions. */
  charge(): Promise<void>;
}

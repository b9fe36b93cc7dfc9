// The decisions of the Lua GCRA (lua/includes/gcra.lua), worked out from
// what a script saw: now, and each key's theoretical arrival time before
// the charge. src/limits/rate/gcra.ts decides, so the Lua and the
// TypeScript cannot disagree on what a state means (gcra-contract.test.ts).
import { gcra, type RateDecision } from '../limits/rate/gcra.js';
import type { RateCharge } from '../limits/rate/rate-limit-store.js';

/** The decision of each charge, from a script's now/before reply (`gcra_reply`). */
export function decisionsOf(charges: readonly RateCharge[], reply: readonly string[]): RateDecision[] {
  const [now, ...before] = reply.map((text) => (text === '' ? undefined : Number(text)));
  return charges.map(({ rule }, i) => gcra(before[i], rule, now!).decision);
}

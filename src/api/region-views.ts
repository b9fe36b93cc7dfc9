// A multi-region result as people read it: a port seen differently, as the
// regions on each side; a region's own view, as its status. The check
// client's sameness check and reports and the MCP tools' message say it
// alike. Zod-free: the check client imports it.
import type { PortDifference, Vantage } from './vantages.js';

const SIDES = [
  ['open', 'open from'],
  ['filtered', 'filtered from'],
  ['closed', 'closed from'],
  ['unknown', 'not verified from'],
] as const;

/** `port 8080: open from NL, UK; filtered from FR`. */
export function differenceText(difference: PortDifference): string {
  const sides = SIDES.filter(([side]) => difference[side].length > 0).map(([side, words]) => `${words} ${difference[side].join(', ')}`);
  return `port ${difference.port}: ${sides.join('; ')}`;
}

/** `complete`, `incomplete (3 of 4 chunks)` or `failed (interrupted)`. */
export function vantageStatusText(vantage: Vantage): string {
  if (vantage.status === 'complete') return 'complete';
  if (vantage.status === 'incomplete') return `incomplete (${vantage.chunks_complete} of ${vantage.total_chunks} chunks)`;
  return vantage.fail_reason === undefined ? 'failed' : `failed (${vantage.fail_reason})`;
}

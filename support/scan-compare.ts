// Compares a scan summary with an expected state for every scanned port.
import type { PortState } from '../src/api/port.js';
import { DEEP_PORTS } from '../src/api/scan-ports.js';
import type { ScanSummary } from '../src/native/scanner.js';

/** Every port of `summary` as a map; ports not listed as open/filtered are closed. */
export function statesOf(summary: ScanSummary, ports: readonly number[]): Map<number, PortState> {
  const states = new Map<number, PortState>(ports.map((port) => [port, 'closed']));
  for (const p of summary.open) states.set(p.port, 'open');
  for (const p of summary.filtered) states.set(p.port, 'filtered');
  return states;
}

/** The ports whose state differs, as "port: got/expected" strings (empty when exact). */
export function mismatches(got: Map<number, PortState>, expected: (port: number) => PortState): string[] {
  const wrong: string[] = [];
  for (const [port, state] of got) {
    if (state !== expected(port)) wrong.push(`${port}: ${state}/${expected(port)}`);
  }
  return wrong;
}

export const ALL_PORTS: readonly number[] = DEEP_PORTS;

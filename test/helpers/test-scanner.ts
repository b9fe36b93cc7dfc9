// The scanner of a native test, on the readiness backend its vitest project
// names in SELFSCAN_TEST_POLLER: the native suite runs once per backend
// (vitest.config.ts). Fails at once when the backend in use is another.
import { POLLER_CHOICES, type PollerChoice } from '../../src/native/poller-choices.js';
import { createScanner, type Scanner } from '../../src/native/scanner.js';

/** The poller the current vitest project asks for; `auto` when it names none. */
export function testPoller(): PollerChoice {
  const poller = process.env.SELFSCAN_TEST_POLLER ?? 'auto';
  if (!(POLLER_CHOICES as readonly string[]).includes(poller)) throw new Error(`SELFSCAN_TEST_POLLER=${poller} is not a poller`);
  return poller as PollerChoice;
}

export function createTestScanner(): Scanner {
  const poller = testPoller();
  const scanner = createScanner({ poller });
  const inUse = scanner.stats().poller;
  if (poller !== 'auto' && inUse !== poller) throw new Error(`asked for the ${poller} poller, the scanner runs ${inUse}`);
  return scanner;
}

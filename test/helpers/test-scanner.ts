// The scanner of a native test, on the readiness backend its vitest project
// names in SELFSCAN_TEST_POLLER and the probe engine it names in
// SELFSCAN_TEST_ENGINE: the native suite runs once per backend, and once on
// the syn engine (vitest.config.ts). Fails at once when the backend or the
// engine in use is another.
import { ENGINE_CHOICES, type EngineChoice } from '../../src/native/engine-choices.js';
import { POLLER_CHOICES, type PollerChoice } from '../../src/native/poller-choices.js';
import { createScanner, type Scanner } from '../../src/native/scanner.js';

/** The poller the current vitest project asks for; `auto` when it names none. */
export function testPoller(): PollerChoice {
  const poller = process.env.SELFSCAN_TEST_POLLER ?? 'auto';
  if (!(POLLER_CHOICES as readonly string[]).includes(poller)) throw new Error(`SELFSCAN_TEST_POLLER=${poller} is not a poller`);
  return poller as PollerChoice;
}

/** The engine the current vitest project asks for; `connect` when it names none. */
export function testEngine(): EngineChoice {
  const engine = process.env.SELFSCAN_TEST_ENGINE ?? 'connect';
  if (!(ENGINE_CHOICES as readonly string[]).includes(engine)) throw new Error(`SELFSCAN_TEST_ENGINE=${engine} is not an engine`);
  return engine as EngineChoice;
}

export function createTestScanner(): Scanner {
  const poller = testPoller();
  const engine = testEngine();
  const scanner = createScanner({ poller, engine });
  const stats = scanner.stats();
  if (poller !== 'auto' && stats.poller !== poller) throw new Error(`asked for the ${poller} poller, the scanner runs ${stats.poller}`);
  if (engine !== 'auto' && stats.engine !== engine) throw new Error(`asked for the ${engine} engine, the scanner runs ${String(stats.engine)}`);
  return scanner;
}

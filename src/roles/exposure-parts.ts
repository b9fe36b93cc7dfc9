// The exposure parts of a deployment from its settings: the facts stage
// the scanners run (or none, when facts are off) and the finisher's
// rating and change tracking (without fingerprints when their retention
// is 0).
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import type { ExamineOpenPorts } from '../exposure/examine-open-ports.js';
import { factsExaminer } from '../exposure/facts-examiner.js';
import type { FingerprintStore } from '../exposure/fingerprint-store.js';
import { ScanExposure } from '../exposure/scan-exposure.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The facts stage of a scanner, or none when facts are off. */
export function factsStage(config: Config): ExamineOpenPorts | undefined {
  return config.exposure.facts ? factsExaminer() : undefined;
}

/** The finisher's exposure step; `fingerprints`: where they are kept (unused when their retention is 0). */
export function scanExposure(config: Config, fingerprints: FingerprintStore, logger: Logger): ScanExposure {
  const keepMs = config.exposure.fingerprintDays * DAY_MS;
  return new ScanExposure({ assess: config.exposure.facts, fingerprints: keepMs > 0 ? { store: fingerprints, keepMs } : undefined, logger });
}

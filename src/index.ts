export type { Port, PortState } from './api/port.js';
export { serviceName } from './api/service-names.js';
export type { EngineChoice, EngineName } from './native/engine-choices.js';
export type { PollerChoice, PollerName } from './native/poller-choices.js';
export type { LearnedTiming, ScanRequest, TimeoutOptions } from './native/scan-request.js';
export type {
  FoundPorts,
  ScanChunk,
  ScanEndStatus,
  ScanError,
  ScanHandle,
  Scanner,
  ScannerOptions,
  ScannerStats,
  ScanSummary,
} from './native/scanner.js';
export { availablePollers, createScanner } from './native/scanner.js';

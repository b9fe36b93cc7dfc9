// The scanner role: takes scans from the queue and runs them on the
// scanner, one runner per process. Only this role needs the native addon.
import type { ScanQueue } from './scan-queue.js';
import { ScanRunner, type ScanRunnerOptions } from './scan-runner.js';

export interface ScanningOptions extends ScanRunnerOptions {
  queue: ScanQueue;
}

export interface Scanning {
  /**
   * Shutdown: scans still waiting end `failed` (`interrupted`) and running
   * ones are cancelled (they then end the same way).
   */
  interrupt(): Promise<void>;
}

export function startScanning(options: ScanningOptions): Scanning {
  const { finisher } = options;
  const runner = new ScanRunner(options);
  options.queue.process(runner.run);
  return {
    interrupt: async () => {
      const waiting = options.queue.takeWaiting();
      runner.cancelAll();
      await Promise.all(waiting.map((record) => finisher.finish(record, { failReason: 'interrupted' }, null)));
    },
  };
}

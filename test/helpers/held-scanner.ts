// The real scanner, whose scans cannot end before the test lets them: a scan
// runs and streams its chunks for real, and its end waits for release().
// For tests that need a scan still in flight while they act (a loopback deep
// scan can end before a burst of requests has been read).
import { createScanner, type ScanHandle, type Scanner } from '../../src/native/scanner.js';

export class HeldScanner implements Pick<Scanner, 'scan' | 'stats'> {
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  /** By default the scanner this process already runs (as the server configured it), or the default one. */
  constructor(private readonly real: Scanner = createScanner()) {}

  scan(...args: Parameters<Scanner['scan']>): ScanHandle {
    const handle = this.real.scan(...args);
    return { id: handle.id, found: handle.found, cancel: () => handle.cancel(), done: handle.done.then(async (summary) => this.gate.then(() => summary)) };
  }

  stats(): ReturnType<Scanner['stats']> {
    return this.real.stats();
  }

  /** Lets every scan, running or to come, end. */
  release(): void {
    this.open();
  }
}

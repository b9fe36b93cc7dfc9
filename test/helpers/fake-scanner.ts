// A scanner stand-in for unit tests of the scan manager's logic: the test
// decides when chunks arrive and how each scan ends.
import type { Port } from '../../src/api/port.js';
import type { ScanChunk, ScanHandle, Scanner, ScanSummary } from '../../src/native/scanner.js';
import type { ScanRequest } from '../../src/native/scan-request.js';

export interface FakeScan {
  request: ScanRequest;
  cancelled: boolean;
  chunk(chunk: Partial<ScanChunk> & { index: number }): void;
  complete(status?: ScanSummary['status'], durationMs?: number): void;
  fail(error: Error & { code?: string }): void;
}

export class FakeScanner implements Pick<Scanner, 'scan'> {
  readonly scans: FakeScan[] = [];
  /** When set, scan() throws it synchronously. */
  throwOnScan: Error | undefined;

  scan(request: ScanRequest, onChunk?: (chunk: ScanChunk) => void): ScanHandle {
    if (this.throwOnScan !== undefined) throw this.throwOnScan;
    let settle!: { resolve: (summary: ScanSummary) => void; reject: (error: unknown) => void };
    const done = new Promise<ScanSummary>((resolve, reject) => (settle = { resolve, reject }));
    const open: Port[] = [];
    const fake: FakeScan = {
      request,
      cancelled: false,
      chunk: (partial) => {
        const chunk: ScanChunk = { total: 1, complete: true, open: [], filtered: [], closed: 0, ...partial };
        open.push(...chunk.open);
        onChunk?.(chunk);
      },
      complete: (status = 'complete', durationMs = 1234) =>
        settle.resolve({ ip: request.ip, status, durationMs, open, filtered: [], closed: 0, portsScanned: request.ports.length, chunksComplete: 0, totalChunks: 0 }),
      fail: (error) => settle.reject(error),
    };
    this.scans.push(fake);
    return {
      id: this.scans.length,
      done,
      cancel: () => {
        fake.cancelled = true;
        fake.complete('cancelled');
      },
    };
  }
}

export function openPort(port: number, banner: string | null = null): Port {
  return { port, state: 'open', service: null, banner };
}

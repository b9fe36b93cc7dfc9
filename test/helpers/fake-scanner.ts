// A scanner stand-in for tests of the logic above the scanner: the test
// decides when chunks arrive and how each scan ends.
import type { Port } from '../../src/api/port.js';
import type { ScanRequest } from '../../src/native/scan-request.js';
import type { FoundPorts, ScanChunk, ScanHandle, Scanner, ScanSummary } from '../../src/native/scanner.js';

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

  /** `endAtOnce`: every scan completes on the next turn, finding nothing (for tests of what surrounds scans). */
  constructor(private readonly options: { endAtOnce?: boolean } = {}) {}

  scan(request: ScanRequest, onChunk?: (chunk: ScanChunk) => void): ScanHandle {
    if (this.throwOnScan !== undefined) throw this.throwOnScan;
    let settle!: { resolve: (summary: ScanSummary) => void; reject: (error: unknown) => void };
    const done = new Promise<ScanSummary>((resolve, reject) => (settle = { resolve, reject }));
    // As the real scanner does: the lists grow before onChunk sees the chunk, and `done` resolves with them.
    const found: FoundPorts = { open: [], filtered: [] };
    const fake: FakeScan = {
      request,
      cancelled: false,
      chunk: (partial) => {
        const chunk: ScanChunk = { total: 1, complete: true, open: [], filtered: [], closed: 0, etaMs: null, ...partial };
        found.open.push(...chunk.open);
        found.filtered.push(...chunk.filtered);
        onChunk?.(chunk);
      },
      complete: (status = 'complete', durationMs = 1234) =>
        settle.resolve({
          ip: request.ip,
          status,
          durationMs,
          ...found,
          closed: 0,
          portsScanned: request.ports.length,
          chunksComplete: 0,
          totalChunks: 0,
          timing: { rate: 0, srttUs: 0, rttvarUs: 0, samples: 0 },
        }),
      fail: (error) => settle.reject(error),
    };
    this.scans.push(fake);
    if (this.options.endAtOnce) setImmediate(() => fake.complete());
    return {
      id: this.scans.length,
      found,
      done,
      cancel: () => {
        fake.cancelled = true;
        fake.complete('cancelled');
      },
    };
  }

  /** The socket budget the service sizes its default concurrency from. */
  stats(): { budget: number } {
    return { budget: 8192 };
  }
}

export function openPort(port: number, banner: string | null = null): Port {
  return { port, state: 'open', service: null, banner };
}

// The udp scan behind the scanner interface the lifecycle already drives
// (native/scanner.ts): a scan request's ports are the probes' ports, the
// sweep settles them together and reports them as one chunk, each open
// port with its facts (what it answered, the bytes, the amplification), so
// the TCP facts stage has nothing to add; the finisher rates them from the
// severity table as it rates TCP ports. Closed ports are counted, as for TCP.
import type { Port } from '../api/port.js';
import type { ScanRequest } from '../native/scan-request.js';
import type { ScanChunk, ScanHandle, Scanner, ScanSummary } from '../native/scanner.js';
import type { UdpProbe } from './probes/udp-probe.js';
import { UDP_PROBES } from './udp-probes.js';
import { type UdpPortOutcome, type UdpSweepOptions, udpSweep } from './udp-sweep.js';

/** A sweep longer than this stops, its silent ports filtered, even with more budget left. */
const MAX_SWEEP_MS = 60_000;

export class UdpScanner implements Pick<Scanner, 'scan'> {
  private nextId = 1;
  private readonly byPort: ReadonlyMap<number, UdpProbe>;

  constructor(
    probes: readonly UdpProbe[] = UDP_PROBES,
    private readonly sweepOptions: Omit<UdpSweepOptions, 'signal' | 'maxMs'> = {},
  ) {
    this.byPort = new Map(probes.map((probe) => [probe.port, probe]));
  }

  scan(request: ScanRequest, onChunk?: (chunk: ScanChunk) => void): ScanHandle {
    const probes = request.ports.map((port) => {
      const probe = this.byPort.get(port);
      if (probe === undefined) throw new RangeError(`no UDP probe for port ${port}`);
      return probe;
    });
    const controller = new AbortController();
    const found = { open: [] as Port[], filtered: [] as Port[] };
    const maxMs = Math.min(MAX_SWEEP_MS, request.budgetMs !== undefined && request.budgetMs > 0 ? request.budgetMs : MAX_SWEEP_MS);
    const started = performance.now();
    const summaryOf = (status: ScanSummary['status'], closed: number, known: number): ScanSummary => ({
      ip: request.ip,
      status,
      durationMs: Math.round(performance.now() - started),
      open: found.open,
      filtered: found.filtered,
      closed,
      portsScanned: known,
      chunksComplete: status === 'complete' ? 1 : 0,
      totalChunks: 1,
      timing: { rate: 0, srttUs: 0, rttvarUs: 0, samples: 0 },
    });
    const done = udpSweep(request.ip, probes, { ...this.sweepOptions, maxMs, signal: controller.signal }).then(
      (result) => {
        found.open.push(...result.ports.filter((port) => port.state === 'open').map(openPort));
        found.filtered.push(...result.ports.filter((port) => port.state === 'filtered').map(filteredPort));
        const closed = result.ports.filter((port) => port.state === 'closed').length;
        onChunk?.({ index: 0, total: 1, complete: true, open: found.open, filtered: found.filtered, closed, etaMs: null });
        return summaryOf('complete', closed, probes.length);
      },
      (error: unknown) => {
        if (controller.signal.aborted) return summaryOf('cancelled', 0, 0);
        throw error;
      },
    );
    return { id: this.nextId++, found, done, cancel: () => controller.abort() };
  }
}

function openPort(outcome: UdpPortOutcome): Port {
  return {
    port: outcome.port,
    state: 'open',
    service: outcome.service,
    banner: outcome.readings[0]?.evidence ?? null,
    facts: {
      udp: {
        service: outcome.service,
        bytes_sent: outcome.bytesSent,
        bytes_received: outcome.bytesReceived,
        amplification: Math.round((outcome.amplification ?? 0) * 100) / 100,
        evidence: outcome.readings.map((reading) => reading.evidence),
        details: Object.assign({}, ...outcome.readings.map((reading) => reading.details)),
      },
    },
  };
}

function filteredPort(outcome: UdpPortOutcome): Port {
  return { port: outcome.port, state: 'filtered', service: outcome.service, banner: null };
}

// A RustScan-like connect sweep, the benchmark's model of a fixed-window
// scanner: plain Node sockets, a fixed window of concurrent connects over the
// ports in order (each finished connect starts the next port), one timeout
// per port and no retries. Open = connected, closed = refused (or any other
// error), filtered = timed out.
//
// Run as a child process with a raised descriptor limit (the window alone
// needs 4,500):
//   prlimit --nofile=20000:20000 node --import tsx bench/scanner/fixed-batch-sweep.ts <ip> [--window N] [--timeout-ms N]
// Prints one JSON line: a SweepResult.
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { DEEP_PORTS } from '../../src/api/scan-ports.js';
import { assertAllowedTarget } from '../../support/allowed-target.js';

export const DEFAULT_WINDOW = 4500;
export const DEFAULT_TIMEOUT_MS = 1500;

export interface SweepResult {
  open: number[];
  filtered: number[];
  closed: number;
  /** Connects that failed with something other than ECONNREFUSED, by error code (counted as closed). */
  errors: Record<string, number>;
  /** The sweep itself, without process start-up. */
  sweepMs: number;
}

/** Sweeps `ports` of `ip` with `window` connects in flight, each given `timeoutMs`. */
export function fixedBatchSweep(ip: string, ports: readonly number[], window = DEFAULT_WINDOW, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<SweepResult> {
  assertAllowedTarget(ip);
  const started = performance.now();
  const result: SweepResult = { open: [], filtered: [], closed: 0, errors: {}, sweepMs: 0 };
  let next = 0;
  let inFlight = 0;
  return new Promise((resolve) => {
    const probe = (port: number): void => {
      inFlight++;
      const socket = connect({ host: ip, port });
      let done = false;
      const finish = (outcome: 'open' | 'closed' | 'filtered', errorCode?: string): void => {
        if (done) return;
        done = true;
        socket.destroy();
        if (outcome === 'open') result.open.push(port);
        else if (outcome === 'filtered') result.filtered.push(port);
        else result.closed++;
        if (errorCode !== undefined) result.errors[errorCode] = (result.errors[errorCode] ?? 0) + 1;
        inFlight--;
        fill();
      };
      socket.setTimeout(timeoutMs, () => finish('filtered'));
      socket.once('connect', () => finish('open'));
      socket.on('error', (err: NodeJS.ErrnoException) => {
        finish('closed', err.code === 'ECONNREFUSED' ? undefined : (err.code ?? 'unknown'));
      });
    };
    const fill = (): void => {
      while (inFlight < window && next < ports.length) probe(ports[next++]!);
      if (inFlight === 0 && next >= ports.length) {
        result.sweepMs = performance.now() - started;
        result.open.sort((a, b) => a - b);
        result.filtered.sort((a, b) => a - b);
        resolve(result);
      }
    };
    fill();
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      window: { type: 'string', default: String(DEFAULT_WINDOW) },
      'timeout-ms': { type: 'string', default: String(DEFAULT_TIMEOUT_MS) },
    },
  });
  const ip = positionals[0];
  if (ip === undefined) throw new Error('usage: fixed-batch-sweep.ts <ip> [--window N] [--timeout-ms N]');
  const result = await fixedBatchSweep(ip, DEEP_PORTS, Number(values.window), Number(values['timeout-ms']));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

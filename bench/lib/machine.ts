// The facts a benchmark figure needs beside it to mean anything.
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { gunzipSync } from 'node:zlib';

/** One line: CPU model and count, memory, kernel, Node version. */
export function machineLine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const gib = Math.round(totalmem() / 2 ** 30);
  return `${cpu} × ${cpus().length} cores, ${gib} GiB, Linux ${release()}, Node ${process.version}`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The kernel's CONFIG_HZ from /proc/config.gz, or null where the kernel does not expose its config. */
export function kernelHz(): number | null {
  try {
    const config = gunzipSync(readFileSync('/proc/config.gz')).toString('utf8');
    const match = /^CONFIG_HZ=(\d+)$/m.exec(config);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

// The facts a benchmark figure needs beside it to mean anything.
import { cpus, totalmem, release } from 'node:os';

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

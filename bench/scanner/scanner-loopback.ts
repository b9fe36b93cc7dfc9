// The scanner benchmark's loopback sweep: our deep scan of 127.0.0.1 without
// banners beside nmap -sT -p- -T5's, as ports per second.
import { median } from '../lib/machine.js';
import { runNmap, runOurs } from './scan-runners.js';
import { count, verdict } from './scanner-figures.js';

const GOAL_PORTS_PER_SECOND = 100_000;
/** Loopback has no fixture truth: whatever listens on this machine is open. */
const ANY_STATE = () => 'closed' as const;

/** Alternates `runs` scans of each; returns the figure's line. */
export async function runLoopbackSweep(runs: number, log: (line: string) => void): Promise<string> {
  const call: number[] = [];
  const whole: number[] = [];
  const nmap: number[] = [];
  for (let round = 0; round < runs; round++) {
    const ours = await runOurs('127.0.0.1', ANY_STATE, false, 'auto', 'connect');
    if (ours.scan.status !== 'complete' || ours.scan.portsScanned !== 65535) {
      throw new Error(`loopback sweep left ports undecided (${ours.scan.status}, ${ours.scan.portsScanned} scanned)`);
    }
    call.push(65535 / (ours.scan.scanMs / 1000));
    whole.push(65535 / (ours.ms / 1000));
    nmap.push(65535 / ((await runNmap('127.0.0.1', ANY_STATE, 'T5')).ms / 1000));
    log(`  loopback round ${round + 1}: selfscan ${count(call.at(-1)!)} ports/s (whole process ${count(whole.at(-1)!)}), nmap ${count(nmap.at(-1)!)} ports/s`);
  }
  const ours = median(call);
  return (
    `loopback sweep (127.0.0.1, no banners): selfscan median ${count(ours)} ports/s over the scan call ` +
    `(goal ≥ ${count(GOAL_PORTS_PER_SECOND)}: ${verdict(ours >= GOAL_PORTS_PER_SECOND)}; whole process ${count(median(whole))} ports/s), ` +
    `nmap -sT -p- -T5 median ${count(median(nmap))} ports/s (whole process), ratio ${(ours / median(nmap)).toFixed(2)}`
  );
}

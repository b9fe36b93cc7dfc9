// The outside tools of the scanner benchmark's engines part, found by path,
// and a child's CPU time: GNU time (apt package `time`) runs the child and
// writes the user and system seconds the kernel's rusage gives for it and
// its threads, as our scan process reports its own from process.cpuUsage().
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import { runTimed, type TimedRun } from '../lib/timed-child.js';

/** The path of `tool` in PATH or the sbin directories; throws saying which apt package has it. */
export function toolPath(tool: string, aptPackage: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'].filter((d) => d !== '');
  for (const dir of dirs) {
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return join(dir, tool);
    } catch {
      // not in this directory
    }
  }
  throw new Error(`${tool} not found: apt-get install -y ${aptPackage}`);
}

/** `file args` timed whole, with its CPU time (user + system, ms) as GNU time reads it. */
export async function runTimedWithCpu(file: string, args: readonly string[], timeoutMs: number): Promise<TimedRun & { cpuMs: number }> {
  const time = toolPath('time', 'time');
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-cpu-'));
  const report = join(dir, 'cpu');
  try {
    const run = await runTimed(time, ['-f', '%U %S', '-o', report, file, ...args], timeoutMs);
    const [user, system] = readFileSync(report, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    if (user === undefined || system === undefined || Number.isNaN(user + system)) throw new Error(`GNU time wrote no CPU time for ${file}`);
    return { ...run, cpuMs: (user + system) * 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

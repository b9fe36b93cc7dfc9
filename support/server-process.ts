// The real server as a child process (`selfscan serve`), for what only a
// process shows: kill -9, SIGTERM, restart on the same data dir.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { LOOPBACK_DNS, NO_LIMITS } from './no-limits.js';

const SOURCE_CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/**
 * How `selfscan` runs: from its sources through tsx (tests), or a node
 * command line of its own (benchmarks run the build in dist/).
 */
export type CliEntry = readonly string[];
const FROM_SOURCE: CliEntry = ['--import', 'tsx', SOURCE_CLI];

/**
 * Where a process runs, when not plainly on this machine's loopback: a
 * command prefix it runs under (`ip netns exec NS`: inside a network
 * namespace) and the address it listens on there, reachable from the test.
 */
export interface Placement {
  prefix?: readonly string[];
  host?: string;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  logs: Record<string, unknown>[];
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

/**
 * Runs `selfscan ARGS`, from source unless `entry` says otherwise;
 * `maxDescriptors`: under `ulimit -n` (soft and hard); `prefix`: under that
 * command (`ip netns exec NS`, which execs the rest: the child is still node).
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  entry: CliEntry = FROM_SOURCE,
  maxDescriptors?: number,
  prefix: readonly string[] = [],
): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | string> } {
  const command = [process.execPath, ...entry, ...args];
  const limited = maxDescriptors === undefined ? command : ['sh', '-c', `ulimit -n ${maxDescriptors} && exec "$0" "$@"`, ...command];
  const [file, ...argv] = [...prefix, ...limited];
  const child = spawn(file!, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** The JSON log lines in a process's output. */
export function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Starts `selfscan serve` on port 0 with `config` (rate limits off, loopback
 * DNS, unless given) as its config file; `maxDescriptors`: under that
 * `ulimit -n`; `place`: where it runs (default: here, on 127.0.0.1).
 */
export async function startServerProcess(
  dataDir: string,
  config: object = {},
  entry: CliEntry = FROM_SOURCE,
  maxDescriptors?: number,
  place: Placement = {},
): Promise<ServerProcess> {
  const configFile = join(dataDir, 'test-config.json');
  writeFileSync(configFile, JSON.stringify({ limits: NO_LIMITS, dns: LOOPBACK_DNS, ...config }));
  const host = place.host ?? '127.0.0.1';
  const run = runCli(
    ['serve', '--host', host, '--port', '0', '--data-dir', dataDir, '--allow-private-targets', '--config', configFile],
    {},
    entry,
    maxDescriptors,
    place.prefix,
  );
  const logs = (): Record<string, unknown>[] => logLines(run.stdout());
  const deadline = Date.now() + 20_000;
  for (;;) {
    const listening = logs().find((line) => line.event === 'listening');
    if (listening !== undefined) {
      return {
        url: `http://${host.includes(':') ? `[${host}]` : host}:${String(listening.port)}`,
        child: run.child,
        get logs() {
          return logs();
        },
        exited: run.exited,
      };
    }
    if (run.child.exitCode !== null || Date.now() > deadline) {
      run.child.kill('SIGKILL');
      throw new Error(`server did not start: ${run.stderr()}${run.stdout()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

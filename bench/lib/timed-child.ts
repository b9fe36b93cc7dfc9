// Runs a command as a child process and times it from spawn to exit: the
// whole-process wall time the scanner benchmark compares.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface TimedRun {
  stdout: string;
  elapsedMs: number;
}

const MAX_STDERR_CHARS = 8192;

/** Runs `file args`; resolves with its stdout and wall time, rejects on a non-zero exit or after `timeoutMs`. */
export function runTimed(file: string, args: readonly string[], timeoutMs: number): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR_CHARS);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, signal) => {
      const elapsedMs = performance.now() - started;
      clearTimeout(timer);
      if (code === 0) return resolve({ stdout: Buffer.concat(stdout).toString('utf8'), elapsedMs });
      const why = signal === 'SIGKILL' ? `killed after ${timeoutMs} ms` : `exited with ${code ?? signal}`;
      reject(new Error(`\`${file} ${args.join(' ')}\` ${why}${stderr ? `:\n${stderr.trim()}` : ''}`));
    });
  });
}

/** The last non-empty line of `stdout`, parsed as JSON. */
export function lastJsonLine<T>(stdout: string): T {
  const line = stdout.trim().split('\n').at(-1);
  if (line === undefined || line === '') throw new Error('child printed no result');
  return JSON.parse(line) as T;
}

/**
 * The helper programs of the netns fixtures: the NFQUEUE programs in C
 * (decoy-responder, answer-forger, path-delay, on the shared
 * nfqueue-fixture/nfqueue_fixture.h) and netns-host.ts's listeners. A C
 * program is compiled on demand into build/fixtures; each is started
 * inside a namespace with `ip netns exec` and awaited until it prints
 * READY, asked for a JSON line of counters with a signal, and stopped with
 * SIGTERM. One still running when this process exits is killed.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES_DIR = fileURLToPath(new URL('../build/fixtures/', import.meta.url));
const SHARED_HEADER = fileURLToPath(new URL('./nfqueue-fixture/nfqueue_fixture.h', import.meta.url));
const NFQUEUE_HEADER = '/usr/include/libnetfilter_queue/libnetfilter_queue.h';
const READY_TIMEOUT_MS = 10_000;
const COUNTERS_TIMEOUT_MS = 5_000;
const MAX_STDERR_CHARS = 16 * 1024;

/**
 * The binary of the NFQUEUE program `source` (a path below support/, such
 * as `path-emulator/path-delay.c`), compiled into build/fixtures when it is
 * missing or older than its source or the shared header. `fixture` names
 * the fixture in the error when libnetfilter-queue is missing.
 */
export function nfqueueProgram(source: string, fixture: string): string {
  const sourceFile = fileURLToPath(new URL(source, import.meta.url));
  const binary = join(FIXTURES_DIR, basename(sourceFile, '.c'));
  const newestSource = Math.max(statSync(sourceFile).mtimeMs, statSync(SHARED_HEADER).mtimeMs);
  if (existsSync(binary) && statSync(binary).mtimeMs >= newestSource) return binary;
  if (!existsSync(NFQUEUE_HEADER)) {
    throw new Error(`${fixture}: ${NFQUEUE_HEADER} is missing: install the Debian package libnetfilter-queue-dev (npm test does)`);
  }
  mkdirSync(FIXTURES_DIR, { recursive: true });
  // Built aside and renamed, so a process starting it never finds half a binary.
  const building = `${binary}.${process.pid}`;
  execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-o', building, sourceFile, '-lnetfilter_queue', '-lnfnetlink'], { stdio: 'pipe' });
  renameSync(building, binary);
  return binary;
}

/**
 * Starts `command` inside `namespace` and resolves once it prints a line
 * READY; `label` begins its errors (`<label> not ready after 10000 ms`,
 * with its stderr). `ip netns exec` execs the command, so the child is the
 * program itself and signals reach it. Its stdin stays open while this
 * process lives (the programs that watch it end with it), and its stdout
 * keeps flowing, so it can never block on a full pipe.
 */
export async function startInNamespace(ip: string, namespace: string, command: readonly string[], label: string): Promise<ChildProcess> {
  const child = spawn(ip, ['netns', 'exec', namespace, ...command], { stdio: ['pipe', 'pipe', 'pipe'] });
  trackForExit(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-MAX_STDERR_CHARS);
  });
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    const fail = (reason: string): void => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`${label} ${reason}${stderr ? `; stderr:\n${stderr.trim()}` : ''}`));
    };
    const onData = (chunk: string): void => {
      stdout += chunk;
      if (stdout.split('\n').includes('READY')) {
        cleanup();
        resolve();
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => fail(`exited before becoming ready (code ${code}, signal ${signal})`);
    const onError = (err: Error): void => fail(`failed to start: ${err.message}`);
    const timer = setTimeout(() => fail(`not ready after ${READY_TIMEOUT_MS} ms`), READY_TIMEOUT_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  child.stdout?.resume();
  return child;
}

/**
 * The next line of counters (a JSON object) that `child` prints once sent
 * `signal`: SIGUSR1 asks for those so far, SIGTERM for the last ones as it
 * exits. Rejects after 5 s without one.
 */
export function nextCounters<T>(child: ChildProcess, label: string, signal: NodeJS.Signals = 'SIGUSR1'): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: string): void => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      cleanup();
      resolve(JSON.parse(line) as T);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${label}: no counters within ${COUNTERS_TIMEOUT_MS} ms`));
    }, COUNTERS_TIMEOUT_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
    };
    child.stdout?.on('data', onData);
    child.kill(signal);
  });
}

/**
 * SIGTERM, then the counters `child` prints as it exits (SIGKILL when it
 * has not exited within 5 s); null when it was gone already or printed none.
 */
export async function stopProgram<T>(child: ChildProcess, label: string): Promise<T | null> {
  if (child.exitCode !== null || child.signalCode !== null) return null;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const counters = nextCounters<T>(child, label, 'SIGTERM').catch(() => null);
  const timer = setTimeout(() => child.kill('SIGKILL'), COUNTERS_TIMEOUT_MS);
  const last = await counters;
  await exited;
  clearTimeout(timer);
  return last;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills `child` (SIGKILL) if it still runs when this process exits. */
export function trackForExit(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when a fixture was never closed; only synchronous work is possible here.
  process.on('exit', () => {
    for (const { pid, exitCode } of running) {
      if (pid === undefined || exitCode !== null) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

// Helpers of bench/http.ts, question 2: `selfscan serve` as a child process,
// many v2 streams held open against it from distinct loopback callers, and
// the child's resident memory from /proc.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

export interface ServerChild {
  port: number;
  pid: number;
  child: ChildProcess;
  /** SIGKILLs the child (the data dir is temporary) and removes its files. */
  kill(): Promise<void>;
}

/** Runs `selfscan serve` on 127.0.0.1:0 with `config` as its config file; resolves once it listens. */
export async function spawnServer(config: object, timeoutMs = 20_000): Promise<ServerChild> {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-bench-streams-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const args = ['--import', 'tsx', CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', join(dir, 'data'), '--allow-private-targets', '--config', configFile];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const kill = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  try {
    const port = await listeningPort(child, timeoutMs);
    return { port, pid: child.pid!, child, kill };
  } catch (error) {
    await kill();
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
}

/** The port of the `"event":"listening"` log line; later lines are read and dropped, so the pipe never fills. */
function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let pending = '';
    let found = false;
    const timer = setTimeout(() => reject(new Error(`server did not listen within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code, signal) => reject(new Error(`server exited (${code ?? signal}) before listening`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (found) return;
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('"event":"listening"')) continue;
        found = true;
        clearTimeout(timer);
        resolve(Number((JSON.parse(line) as { port: number }).port));
      }
    });
  });
}

export interface Memory {
  rssKiB: number;
  anonKiB: number;
  fileKiB: number;
}

/** VmRSS, RssAnon and RssFile of `pid`, from /proc/<pid>/status. */
export function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: kib('VmRSS'), anonKiB: kib('RssAnon'), fileKiB: kib('RssFile') };
}

/** The i-th distinct caller: 127.a.b.c, c in 1..250 (never .0 or .255). */
export function callerAddress(block: number, i: number): string {
  return `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** What the held streams have seen so far, summed over all of them. */
export interface StreamCounts {
  /** Streams whose first `event: scan:queued` has arrived. */
  queued: number;
  /** Streams that have seen `sweptMarker` (their scan's port sweep is done). */
  swept: number;
  /** Streams the server ended or broke (any close before we close them). */
  ended: number;
}

export interface HeldStreams {
  counts: StreamCounts;
  closeAll(): void;
}

interface StreamOptions {
  port: number;
  path: string;
  callers: readonly string[];
  /** A string in the event text that marks the scan's sweep as done. */
  sweptMarker: string;
  /** Streams connecting and waiting for their first event at once. */
  parallel: number;
}

/**
 * Opens one raw-socket stream per caller, `parallel` at a time, each one
 * counted as open once its first `scan:queued` event arrives. Resolves when
 * every stream has its first event (or ended). Sockets stay open until closeAll().
 */
export async function openStreams(options: StreamOptions, counts: StreamCounts = { queued: 0, swept: 0, ended: 0 }): Promise<HeldStreams> {
  const sockets: Socket[] = [];
  let closing = false;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.callers.length) {
      const caller = options.callers[next++]!;
      await new Promise<void>((resolve) => sockets.push(holdStream(options, caller, counts, resolve, () => closing)));
    }
  };
  await Promise.all(Array.from({ length: options.parallel }, worker));
  return {
    counts,
    closeAll: () => {
      closing = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** One stream from `caller`; `onFirstEvent` runs once, at its first event or its end. */
function holdStream(options: StreamOptions, caller: string, counts: StreamCounts, onFirstEvent: () => void, closing: () => boolean): Socket {
  const socket = connect({ host: '127.0.0.1', port: options.port, localAddress: caller });
  let tail = '';
  let queued = false;
  let swept = false;
  socket.setEncoding('utf8');
  socket.on('connect', () => socket.write(`GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1:${options.port}\r\nAccept: text/event-stream\r\n\r\n`));
  socket.on('data', (chunk: string) => {
    const text = tail + chunk;
    tail = text.slice(-256);
    if (!queued && text.includes('event: scan:queued')) {
      queued = true;
      counts.queued++;
      onFirstEvent();
    }
    if (!swept && text.includes(options.sweptMarker)) {
      swept = true;
      counts.swept++;
    }
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    if (!closing()) counts.ended++;
    onFirstEvent();
  });
  return socket;
}

/** Resolves once `done()` holds, polling; rejects after `timeoutMs` with `what`. */
export async function waitUntil(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

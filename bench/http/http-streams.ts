// Helpers of bench/http/http.ts, question 2: `selfscan serve` as a child process
// (with its inspector on loopback, for bench/http/http-memory.ts), many v2
// streams held open against it from loopback callers, and the deep-scan
// queue kept blocked so that they stay open.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SCAN_PROFILES } from '../../src/api/scan-type.js';
import { BUILT_CLI } from '../lib/built.js';
import { rawRequest } from './http-throughput.js';

export interface ServerChild {
  port: number;
  pid: number;
  child: ChildProcess;
  /** The child's inspector WebSocket (on 127.0.0.1). */
  inspectorUrl: string;
  /** SIGKILLs the child (the data dir is temporary) and removes its files. */
  kill(): Promise<void>;
}

/** Runs `selfscan serve` on 127.0.0.1:0 with `config` as its config file; resolves once it listens. */
export async function spawnServer(config: object, timeoutMs = 20_000): Promise<ServerChild> {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-bench-streams-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const args = [
    '--inspect=127.0.0.1:0',
    BUILT_CLI,
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--data-dir',
    join(dir, 'data'),
    '--allow-private-targets',
    '--config',
    configFile,
  ];
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
    const inspectorUrl = /Debugger listening on (ws:\/\/\S+)/.exec(stderr)?.[1];
    if (inspectorUrl === undefined) throw new Error('the server announced no inspector');
    return { port, pid: child.pid!, child, inspectorUrl, kill };
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

/** The i-th distinct caller: 127.a.b.c, c in 1..250 (never .0 or .255). */
export function callerAddress(block: number, i: number): string {
  return `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** What the held streams have seen so far, summed over all of them. */
export interface StreamCounts {
  /** Streams whose first `event: scan:queued` has arrived. */
  queued: number;
  /** Streams the server ended or broke (any close before closeAll()). */
  ended: number;
}

export interface HeldStreams {
  closeAll(): void;
}

interface StreamOptions {
  port: number;
  path: string;
  /** One stream per entry; an address may appear more than once. */
  callers: readonly string[];
  /** Streams connecting and waiting for their first event at once. */
  parallel: number;
}

/**
 * Opens one raw-socket stream per entry of `callers`, `parallel` at a time;
 * resolves when every stream has its first `scan:queued` event (or ended).
 * The sockets stay open until closeAll().
 */
export async function openStreams(options: StreamOptions, counts: StreamCounts): Promise<HeldStreams> {
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
    closeAll: () => {
      closing = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** One stream from `caller`; `onFirstEvent` runs at its first event or at its end. */
function holdStream(options: StreamOptions, caller: string, counts: StreamCounts, onFirstEvent: () => void, closing: () => boolean): Socket {
  const socket = connect({ host: '127.0.0.1', port: options.port, localAddress: caller });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('connect', () => socket.write(`GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1:${options.port}\r\nAccept: text/event-stream\r\n\r\n`));
  const onData = (chunk: string): void => {
    text += chunk;
    if (!text.includes('event: scan:queued')) return;
    counts.queued++;
    socket.off('data', onData).resume(); // later events are read and dropped
    onFirstEvent();
  };
  socket.on('data', onData);
  socket.on('error', () => {});
  socket.on('close', () => {
    if (!closing()) counts.ended++;
    onFirstEvent();
  });
  return socket;
}

/** Resolves once `done()` holds, polling; rejects after `timeoutMs`, saying `what()`. */
export async function waitUntil(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Keeps the deep-scan queue blocked: starts a deep scan of `caller` (with
 * concurrency.deep 1, the only one running) and waits until its port sweep
 * is done. The scan then stays in flight while its PTR lookup waits on
 * DNS servers that never answer, and every later deep scan stays queued.
 */
export async function blockDeepQueue(port: number, caller: string, timeoutMs = 20_000): Promise<void> {
  const started = await rawRequest(port, 'POST', '/v1/deep', caller);
  if (!started.statusLine.includes(' 200 ')) throw new Error(`POST /v1/deep from ${caller} answered ${started.statusLine}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = JSON.parse((await rawRequest(port, 'GET', '/v1/deep', caller)).body.toString('utf8')) as { status: string; chunks_complete?: number };
    if (!['queued', 'running'].includes(body.status)) throw new Error(`the blocking deep scan ended ${body.status}: is DNS answering?`);
    if (body.chunks_complete === SCAN_PROFILES.deep.totalChunks) return;
    if (Date.now() > deadline) throw new Error(`the blocking deep scan did not sweep its ports within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The blocking scan is still in flight (so no held stream's scan has started). */
export async function deepQueueStillBlocked(port: number, caller: string): Promise<boolean> {
  const body = JSON.parse((await rawRequest(port, 'GET', '/v1/deep', caller)).body.toString('utf8')) as { status: string };
  return ['queued', 'running'].includes(body.status);
}

// What a bench/load/load.ts run talks to: `selfscan serve` as a child process
// (private targets and callbacks allowed, rate limits off, setting
// http.server as --http-server asks, every other setting at its default,
// the default concurrency included), a loopback
// DNS server for its PTR lookups (NXDOMAIN for all: nothing leaves
// loopback), the webhook receiver, and the sampler of the server's /proc.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { HttpServerChoice } from '../../src/config/http-server-choices.js';
import type { HttpServerName } from '../../src/http/http-front.js';
import { callerFetch } from '../../support/callers.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { BUILT_CLI } from '../lib/built.js';
import { ProcessSampler } from '../lib/load-metrics.js';
import { WebhookInbox } from './load-callers.js';

/** Addresses of the harness's own requests (key, probes, warm-up): never a measured caller. */
export const SERVICE_CALLER = '127.9.0.1';
const MCP_PROBE_CALLER = '127.9.0.2';

export interface LoadEnv {
  baseUrl: string;
  pid: number;
  /** From the server's `listening` log line. */
  concurrency: { fast: number; deep: number };
  /** The HTTP front the server answers on, from its `listening` log line. */
  httpServer: HttpServerName;
  socketBudget: number;
  sampler: ProcessSampler;
  inbox: WebhookInbox;
  /** Whether the MCP endpoint answered the probe (tools fast_scan and deep_scan listed); why not, if not. */
  mcp: { ok: boolean; note: string };
  /** The server's JSON log lines so far (parsed on each call). */
  logs(): Record<string, unknown>[];
  close(): Promise<void>;
}

/** Every env not yet closed: the watchdog kills their servers and removes their data. */
const openEnvs = new Set<{ server: ServerProcess; dataDir: string }>();

/** SIGKILLs every server still running and removes its data dir (synchronous: usable from an 'exit' handler). */
export function killAllServers(): void {
  for (const { server, dataDir } of openEnvs) {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
  openEnvs.clear();
}

/**
 * The server with setting http.server `httpServer`; with `profileDir`, it is
 * CPU-profiled and writes its profile there when closed.
 */
export async function startLoadEnv(httpServer: HttpServerChoice = 'auto', profileDir?: string): Promise<LoadEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-load-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const dns = await startDnsWorker();
    cleanups.push(() => dns.close());
    const receiver: Receiver = await startReceiver('127.0.0.1');
    cleanups.push(() => receiver.close());
    const nodeOptions = process.env.NODE_OPTIONS;
    if (profileDir !== undefined) process.env.NODE_OPTIONS = `${nodeOptions ?? ''} --import ${profilerPreload(dataDir, profileDir)}`.trim();
    const server = await startServerProcess(
      dataDir,
      {
        allowPrivateCallbacks: true,
        dns: { servers: [dns.address], timeoutMs: 2000 },
        http: { server: httpServer },
      },
      [BUILT_CLI],
    ).finally(() => {
      if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = nodeOptions;
    });
    const entry = { server, dataDir };
    openEnvs.add(entry);
    cleanups.push(async () => {
      openEnvs.delete(entry);
      // A profiled server must exit by itself to write its profile: SIGTERM, then SIGKILL if it lingers.
      const running = (): boolean => server.child.exitCode === null && server.child.signalCode === null;
      if (profileDir !== undefined && running()) server.child.kill('SIGTERM');
      await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, profileDir === undefined ? 0 : 40_000))]);
      if (running()) server.child.kill('SIGKILL');
      await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    });
    const listening = server.logs.find((line) => line.event === 'listening') as {
      concurrency: { fast: number; deep: number };
      socketBudget: number;
      http_server: HttpServerName;
    };
    if (httpServer !== 'auto' && listening.http_server !== httpServer)
      throw new Error(`asked for http.server ${httpServer}, the server answers on ${listening.http_server}`);
    const keyResponse = await callerFetch(SERVICE_CALLER)(`${server.url}/.well-known/selfscan-webhook-key`, { signal: AbortSignal.timeout(5_000) });
    const { pem } = (await keyResponse.json()) as { pem: string };
    const inbox = new WebhookInbox(receiver, pem);
    cleanups.push(() => inbox.stop());
    const sampler = new ProcessSampler(server.child.pid!);
    cleanups.push(() => sampler.stop());
    return {
      baseUrl: server.url,
      pid: server.child.pid!,
      concurrency: listening.concurrency,
      httpServer: listening.http_server,
      socketBudget: listening.socketBudget,
      sampler,
      inbox,
      mcp: await probeMcp(server.url),
      logs: () => server.logs,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A preload (node --import, through NODE_OPTIONS, which does not allow
 * --cpu-prof) that profiles the server from its start and writes
 * `server-<pid>.cpuprofile` into `profileDir` when it exits.
 */
function profilerPreload(dataDir: string, profileDir: string): string {
  mkdirSync(profileDir, { recursive: true });
  const file = join(dataDir, 'profiler.mjs');
  writeFileSync(
    file,
    `import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.start');
process.on('exit', () => session.post('Profiler.stop', (error, result) => {
  if (!error) writeFileSync(${JSON.stringify(profileDir)} + '/server-' + process.pid + '.cpuprofile', JSON.stringify(result.profile));
}));
`,
  );
  return file;
}

/**
 * Its own thread, so that answers never wait on the callers' event loop:
 * the scan's PTR lookup is part of a scan's time. Answers every query with
 * NXDOMAIN (the question echoed, nothing else).
 */
const DNS_WORKER = `
const { parentPort } = require('node:worker_threads');
const socket = require('node:dgram').createSocket('udp4');
socket.on('message', (query, peer) => {
  if (query.length < 12) return;
  let end = 12;
  while (end < query.length && query[end] !== 0) end += query[end] + 1;
  end += 5; // the root label, QTYPE, QCLASS
  if (end > query.length) return;
  const answer = Buffer.from(query.subarray(0, end));
  answer[2] = 0x80 | (query[2] & 0x79); // QR; opcode and RD as asked
  answer[3] = 0x80 | 3; // RA, NXDOMAIN
  answer.writeUInt16BE(1, 4);
  answer.fill(0, 6, 12);
  socket.send(answer, peer.port, peer.address);
});
socket.bind(0, '127.0.0.1', () => parentPort.postMessage(socket.address().port));
`;

async function startDnsWorker(): Promise<{ address: string; close(): Promise<void> }> {
  const worker = new Worker(DNS_WORKER, { eval: true });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return { address: `127.0.0.1:${port}`, close: async () => void (await worker.terminate()) };
}

/** Connects an SDK client and lists the tools; any failure turns the MCP flow off for the run. */
async function probeMcp(baseUrl: string): Promise<{ ok: boolean; note: string }> {
  try {
    const { connectMcp } = await import('../../support/mcp-client.js');
    const client = await connectMcp(baseUrl, MCP_PROBE_CALLER);
    try {
      const { tools } = await client.listTools(undefined, { timeout: 10_000 });
      const names = tools.map((tool) => tool.name);
      if (!names.includes('fast_scan') || !names.includes('deep_scan')) return { ok: false, note: `MCP lists tools ${names.join(', ') || 'none'}` };
      return { ok: true, note: 'MCP endpoint answered (SDK client, Streamable HTTP)' };
    } finally {
      await client.close().catch(() => {});
    }
  } catch (error) {
    return { ok: false, note: `MCP endpoint not usable: ${(error as Error).message}` };
  }
}

// What a bench/load.ts run talks to: `selfscan serve` as a child process
// (private targets and callbacks allowed, rate limits off, every other
// setting at its default, the default concurrency included), a loopback
// DNS server for its PTR lookups (NXDOMAIN for all: nothing leaves
// loopback), the webhook receiver, and the sampler of the server's /proc.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { callerFetch } from '../test/helpers/callers.js';
import { type DnsServer, startDnsServer } from '../test/helpers/dns-server.js';
import { type ServerProcess, startServerProcess } from '../test/helpers/server-process.js';
import { type Receiver, startReceiver } from '../test/helpers/webhook-receiver.js';
import { WebhookInbox } from './load-callers.js';
import { ProcessSampler } from './load-metrics.js';

/** Addresses of the harness's own requests (key, probes, warm-up): never a measured caller. */
export const SERVICE_CALLER = '127.9.0.1';
const MCP_PROBE_CALLER = '127.9.0.2';

export interface LoadEnv {
  baseUrl: string;
  pid: number;
  /** From the server's `listening` log line. */
  concurrency: { fast: number; deep: number };
  socketBudget: number;
  sampler: ProcessSampler;
  inbox: WebhookInbox;
  /** Whether the MCP endpoint answered the probe (tools fast_scan and deep_scan listed); why not, if not. */
  mcp: { ok: boolean; note: string };
  close(): Promise<void>;
}

/** Every env not yet closed: the watchdog kills their servers. */
export const openEnvs = new Set<{ server: ServerProcess }>();

/** SIGKILLs every server still running (usable from an 'exit' handler: synchronous). */
export function killAllServers(): void {
  for (const { server } of openEnvs) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
}

export async function startLoadEnv(): Promise<LoadEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-load-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  const close = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const dns: DnsServer = await startDnsServer({});
    cleanups.push(() => dns.close());
    const receiver: Receiver = await startReceiver('127.0.0.1');
    cleanups.push(() => receiver.close());
    const server = await startServerProcess(dataDir, {
      allowPrivateCallbacks: true,
      dns: { servers: [dns.address], timeoutMs: 2000 },
    });
    const entry = { server };
    openEnvs.add(entry);
    cleanups.push(async () => {
      openEnvs.delete(entry);
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
      await Promise.race([server.exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    });
    const listening = server.logs.find((line) => line.event === 'listening') as { concurrency: { fast: number; deep: number }; socketBudget: number };
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
      socketBudget: listening.socketBudget,
      sampler,
      inbox,
      mcp: await probeMcp(server.url),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Connects an SDK client and lists the tools; any failure turns the MCP flow off for the run. */
async function probeMcp(baseUrl: string): Promise<{ ok: boolean; note: string }> {
  try {
    const { connectMcp } = await import('../test/helpers/mcp-client.js');
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

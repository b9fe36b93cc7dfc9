// The callers of bench/load/load.ts: each one has its own loopback address (so
// it is also its own scan target) and runs one flow to the scan's end:
//   v1       POST, then GET every pollMs until the status is final
//   v2       GET /v2/... and read the Server-Sent Events to scan:complete
//   webhook  POST with X-Callback-Url to the local receiver, then wait for
//            the delivery (a GET every few seconds only bounds the wait)
//   mcp      MCP over Streamable HTTP: connect, then call <type>_scan until final
// Every request is timed into the LatencyLog; nothing here throws: a flow's
// failures are returned as its errors. Every caller has one lean keep-alive
// connection (load-http.ts); MCP callers speak it through load-mcp.ts.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ReceivedHook, Receiver } from '../../support/webhook-receiver.js';
import { CallerConnection } from '../lib/load-http.js';
import { LeanMcpClient } from '../lib/load-mcp.js';
import type { LatencyLog, RequestKind } from '../lib/load-metrics.js';
import type { Target } from '../lib/load-truth.js';

export type Flow = 'v1' | 'v2' | 'webhook' | 'mcp';
export const FLOWS: readonly Flow[] = ['v1', 'v2', 'webhook', 'mcp'];

export interface CallerPlan extends Target {
  flow: Flow;
  /** How long after the phase's start this caller sends its first request (callers spread over a ramp). */
  delayMs?: number;
}

export interface CallerOutcome {
  plan: CallerPlan;
  /** performance.now() when the request that starts the scan was sent (POST, stream GET, first tool call). */
  startedAt: number;
  /** performance.now() when the caller learnt the final result (poll, event, delivery); null if it never did. */
  finishedAt: number | null;
  /** The final ScanResult the caller got, or null. */
  result: unknown;
  errors: string[];
}

export interface FlowContext {
  /** http://127.0.0.1:PORT of the server. */
  baseUrl: string;
  latencies: LatencyLog;
  /** Where webhooks arrive. */
  inbox: WebhookInbox;
  pollMs: number;
  /** performance.now() past which no caller starts another request. */
  deadline: number;
}

/** Longest wait for one request. */
const REQUEST_TIMEOUT_MS = 15_000;
/** A webhook caller's GET, while it waits for its delivery, to learn whether the scan is over. */
const WEBHOOK_WATCH_MS = 3_000;
/** How long a delivery may still take once the scan is known to be over. */
export const WEBHOOK_GRACE_MS = 15_000;

const IN_FLIGHT = new Set(['queued', 'running']);
type Body = Record<string, unknown>;

/** Runs `plan`'s flow to its end. */
export async function runCaller(ctx: FlowContext, plan: CallerPlan): Promise<CallerOutcome> {
  if (plan.delayMs !== undefined && plan.delayMs > 0) await sleep(plan.delayMs);
  const outcome: CallerOutcome = { plan, startedAt: performance.now(), finishedAt: null, result: null, errors: [] };
  try {
    const flows: Record<Flow, (ctx: FlowContext, plan: CallerPlan, outcome: CallerOutcome) => Promise<void>> = { v1, v2, webhook, mcp };
    await flows[plan.flow](ctx, plan, outcome);
  } catch (error) {
    outcome.errors.push(`${plan.flow} ${plan.scanType} ${plan.address}: ${(error as Error).message}`);
  }
  return outcome;
}

function requestTimeout(ctx: FlowContext): number {
  return Math.round(Math.max(1_000, Math.min(REQUEST_TIMEOUT_MS, ctx.deadline - performance.now())));
}

const portOf = (ctx: FlowContext): number => Number(new URL(ctx.baseUrl).port);

/** The caller's REST connection; the time each TCP connect takes is logged as `TCP connect`. */
const callerConnection = (ctx: FlowContext, plan: CallerPlan): CallerConnection =>
  new CallerConnection(portOf(ctx), plan.address, (startedAt, ms) => ctx.latencies.add('TCP connect', startedAt, ms));

/** One request, timed; its JSON body, or a throw for anything but a 200 with JSON. */
async function jsonRequest(
  ctx: FlowContext,
  kind: RequestKind,
  conn: CallerConnection,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Body> {
  return ctx.latencies.time(
    kind,
    async () => {
      const response = await conn.request(method, path, { headers, timeoutMs: requestTimeout(ctx) });
      let body: Body;
      try {
        body = JSON.parse(response.body) as Body;
      } catch {
        throw new Error(`${method} ${path} answered ${response.status} with no JSON: ${response.body.slice(0, 80)}`);
      }
      if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status} ${String(body.error)}: ${String(body.reason)}`);
      return body;
    },
    conn.localAddress,
  );
}

function mustBeInFlight(body: Body, what: string): void {
  if (!IN_FLIGHT.has(String(body.status))) throw new Error(`${what} answered status ${String(body.status)}, not queued or running`);
}

/** GETs the scan's state every pollMs until it is final. */
async function pollUntilFinal(ctx: FlowContext, conn: CallerConnection, path: string): Promise<Body> {
  for (;;) {
    if (performance.now() + ctx.pollMs > ctx.deadline) throw new Error('scan not final at the time limit');
    await sleep(ctx.pollMs);
    const body = await jsonRequest(ctx, 'GET poll', conn, 'GET', path);
    if (body.status === 'none') throw new Error(`GET ${path} answered none while a scan should exist`);
    if (!IN_FLIGHT.has(String(body.status))) return body;
  }
}

async function v1(ctx: FlowContext, plan: CallerPlan, outcome: CallerOutcome): Promise<void> {
  const conn = callerConnection(ctx, plan);
  try {
    const path = `/v1/${plan.scanType}`;
    outcome.startedAt = performance.now();
    mustBeInFlight(await jsonRequest(ctx, 'POST', conn, 'POST', path), `POST ${path}`);
    outcome.result = await pollUntilFinal(ctx, conn, path);
    outcome.finishedAt = performance.now();
  } finally {
    conn.close();
  }
}

/**
 * GET /v2/...: the stream's open is timed to its response head; the server
 * ends the response right after the terminal event, so the response's end
 * is when the caller learns the result.
 */
async function v2(ctx: FlowContext, plan: CallerPlan, outcome: CallerOutcome): Promise<void> {
  const conn = callerConnection(ctx, plan);
  const path = `/v2/${plan.scanType}`;
  let opened = false;
  const started = performance.now();
  const headTimed = (): void => {
    if (!opened) ctx.latencies.add('v2 open', started, performance.now() - started);
    opened = true;
  };
  try {
    outcome.startedAt = started;
    const timeoutMs = Math.round(Math.max(1_000, ctx.deadline - performance.now()));
    const response = await conn.request('GET', path, { headers: { Accept: 'text/event-stream' }, timeoutMs, onHead: headTimed });
    const end = performance.now();
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !type.startsWith('text/event-stream'))
      throw new Error(`GET ${path} answered ${response.status} ${type}: ${response.body.slice(0, 120)}`);
    const events = response.body
      .replace(/\r\n/g, '\n')
      .split('\n\n')
      .map(parseEvent)
      .filter((event) => event !== null);
    if (events[0]?.name !== 'scan:queued') throw new Error(`first event ${events[0]?.name ?? 'none'}, not scan:queued`);
    const last = events.at(-1)!;
    if (last.name !== 'scan:complete' && last.name !== 'scan:failed')
      throw new Error(`stream of ${path} ended after ${last.name}, not scan:complete or scan:failed`);
    outcome.finishedAt = end;
    outcome.result = JSON.parse(last.data) as unknown;
  } finally {
    headTimed(); // a stream that never opened counts its time too
    conn.close();
  }
}

/** An SSE block's event name and data; null for a block of comments only. */
function parseEvent(block: string): { name: string; data: string } | null {
  let name = 'message';
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    fields++;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  return fields === 0 ? null : { name, data: data.join('\n') };
}

/** Resolves with `promise`'s value, or null after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(resolve, ms, null)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const hookPath = (plan: Target): string => `/hook/${plan.scanType}/${plan.address}`;

async function webhook(ctx: FlowContext, plan: CallerPlan, outcome: CallerOutcome): Promise<void> {
  const inbox = ctx.inbox;
  const conn = callerConnection(ctx, plan);
  const path = `/v1/${plan.scanType}`;
  const arrived = inbox.wait(hookPath(plan));
  outcome.startedAt = performance.now();
  let hook: ReceivedHook | null;
  let ended: Body | null = null;
  try {
    mustBeInFlight(await jsonRequest(ctx, 'POST', conn, 'POST', path, { 'X-Callback-Url': inbox.url(hookPath(plan)) }), `POST ${path}`);
    hook = await within(arrived, WEBHOOK_WATCH_MS);
    while (hook === null && ended === null) {
      if (performance.now() > ctx.deadline) throw new Error('no webhook and scan not final at the time limit');
      const state = await jsonRequest(ctx, 'GET poll', conn, 'GET', path);
      if (IN_FLIGHT.has(String(state.status))) hook = await within(arrived, WEBHOOK_WATCH_MS);
      else ended = state;
    }
  } finally {
    conn.close();
  }
  hook ??= await within(arrived, WEBHOOK_GRACE_MS);
  if (hook === null) {
    // Counted as missing by the run; the polled result is still checked.
    outcome.result = ended;
    return;
  }
  outcome.finishedAt = inbox.arrivedAt(hook);
  if (!inbox.signedBySelfscan(hook)) throw new Error('webhook signature does not verify');
  const body = JSON.parse(hook.body) as { event?: unknown; result?: unknown };
  if (hook.headers['x-selfscan-event'] !== body.event)
    throw new Error(`X-Selfscan-Event ${String(hook.headers['x-selfscan-event'])} but body event ${String(body.event)}`);
  outcome.result = body.result;
}

async function mcp(ctx: FlowContext, plan: CallerPlan, outcome: CallerOutcome): Promise<void> {
  const conn = callerConnection(ctx, plan);
  try {
    const client = new LeanMcpClient(conn);
    await ctx.latencies.time('MCP connect', () => client.connect(requestTimeout(ctx)));
    outcome.startedAt = performance.now();
    for (;;) {
      const result = await ctx.latencies.time('MCP call', () => client.callTool(`${plan.scanType}_scan`, {}, requestTimeout(ctx)));
      const state = (result.structuredContent ?? {}) as Body;
      if (result.isError === true) throw new Error(`${plan.scanType}_scan refused: ${String(state.error)}: ${String(state.reason)}`);
      if (!IN_FLIGHT.has(String(state.status))) {
        outcome.finishedAt = performance.now();
        outcome.result = state;
        return;
      }
      if (performance.now() + ctx.pollMs > ctx.deadline) throw new Error('scan not final at the time limit');
      await sleep(ctx.pollMs);
    }
  } finally {
    conn.close();
  }
}

/**
 * What the local webhook receiver got, by path: callers wait on their own
 * path, deliveries are checked against the service's public key.
 */
export class WebhookInbox {
  private cursor = 0;
  private readonly byPath = new Map<string, ReceivedHook[]>();
  private readonly waiters = new Map<string, ((hook: ReceivedHook) => void)[]>();
  private readonly timer: NodeJS.Timeout;
  private readonly key: KeyObject;

  constructor(
    private readonly receiver: Receiver,
    publicKeyPem: string,
  ) {
    this.key = createPublicKey(publicKeyPem);
    this.timer = setInterval(() => this.drain(), 5);
    this.timer.unref();
  }

  url(path: string): string {
    return this.receiver.url(path);
  }

  /** The first delivery to `path` (one that already arrived included); never rejects. */
  wait(path: string): Promise<ReceivedHook> {
    this.drain();
    const first = this.byPath.get(path)?.[0];
    if (first !== undefined) return Promise.resolve(first);
    return new Promise((resolve) => this.waiters.set(path, [...(this.waiters.get(path) ?? []), resolve]));
  }

  /** Every delivery to `path` so far. */
  deliveries(path: string): readonly ReceivedHook[] {
    this.drain();
    return this.byPath.get(path) ?? [];
  }

  /** When the receiver got `hook`, on performance.now()'s clock. */
  arrivedAt(hook: ReceivedHook): number {
    return hook.at - performance.timeOrigin;
  }

  /** X-Selfscan-Signature verifies over `<timestamp>.<body>` with the service's key. */
  signedBySelfscan(hook: ReceivedHook): boolean {
    const timestamp = hook.headers['x-selfscan-timestamp'];
    const signature = hook.headers['x-selfscan-signature'];
    if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
    return verify(null, Buffer.from(`${timestamp}.${hook.body}`), this.key, Buffer.from(signature, 'base64'));
  }

  private drain(): void {
    const received = this.receiver.received;
    while (this.cursor < received.length) {
      const hook = received[this.cursor++]!;
      this.byPath.set(hook.path, [...(this.byPath.get(hook.path) ?? []), hook]);
      for (const resolve of this.waiters.get(hook.path)?.splice(0) ?? []) resolve(hook);
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

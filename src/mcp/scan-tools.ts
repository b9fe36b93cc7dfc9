// The MCP tools fast_scan and deep_scan, bound to one caller. A call never
// waits for a scan to end: it returns the scan in flight, or the last
// unexpired result, or starts a scan (through the same abuse controls as
// REST) and returns its fresh state. Only a call that carries a progress
// token stays open a while, reporting the scan's chunks as progress.
import { McpServer, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';

import { errorAnswer } from '../api/api-error.js';
import type { ScanResult } from '../api/scan-result.js';
import { SCAN_PROFILES, SCAN_TYPES, type ScanType } from '../api/scan-type.js';
import { VERSION } from '../api/version.js';
import type { RouteContext } from '../http/route-context.js';
import type { StreamEvent } from '../scan/scan-events.js';
import { memoiseJsonSchema } from './memoised-json-schema.js';
import { refusalResult, type ScanToolResult, scanToolOutput, scanToolResult } from './scan-tool-result.js';

/** How long a call with a progress token stays open waiting for the scan to end. */
const PROGRESS_HOLD_MS = 25_000;

const HOW_TO_CALL =
  'Only the public IP address this request comes from is scanned; no other target can be chosen. ' +
  'Non-blocking: a call starts a scan unless one is in flight or an unexpired result exists, and returns its state. ' +
  'Call again after poll_after_seconds until status is complete, incomplete or failed. Results last 24 hours; ' +
  'rescan: true starts a new scan. With a progress token the call stays open up to ' +
  `${PROGRESS_HOLD_MS / 1000} s and reports progress.`;

const DESCRIPTIONS: Readonly<Record<ScanType, string>> = {
  fast:
    `Checks which of ${SCAN_PROFILES.fast.ports.length} common TCP ports (SSH, SMTP, HTTP(S), databases, remote desktop…) ` +
    "of the caller's own public IP address are reachable from the internet; about 10-20 s once started. " +
    HOW_TO_CALL,
  deep:
    "Checks which of all 65,535 TCP ports of the caller's own public IP address are reachable from the internet; " +
    'about 1-5 minutes once started, and rate-limited (by default one deep scan per IP every 5 minutes). ' +
    HOW_TO_CALL,
};

const INSTRUCTIONS =
  'selfscan tells a server which of its TCP ports the internet can reach, by scanning the address the ' +
  'request comes from and nothing else. fast_scan covers common ports in seconds, deep_scan every port in minutes.';

const scanToolInput = memoiseJsonSchema(
  z.strictObject({
    rescan: z.boolean().default(false).describe('Start a new scan even if an unexpired result exists. Default false.'),
  }),
);

type Settled = Exclude<ScanResult, { status: 'none' }>;

const inFlight = (body: ScanResult): boolean => body.status === 'queued' || body.status === 'running';

/**
 * An MCP server whose tools scan `ip`, the caller of the request it serves
 * (the SDK's stateless serving builds one per request).
 */
export function createScanServer(context: RouteContext, ip: string): McpServer {
  const server = new McpServer({ name: 'selfscan', version: VERSION }, { instructions: INSTRUCTIONS });
  for (const scanType of SCAN_TYPES) {
    server.registerTool(
      `${scanType}_scan`,
      {
        title: `${scanType === 'fast' ? 'Fast' : 'Deep'} port scan of the caller`,
        description: DESCRIPTIONS[scanType],
        inputSchema: scanToolInput,
        outputSchema: scanToolOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      ({ rescan }, ctx) => callScanTool(context, ip, scanType, rescan, ctx),
    );
  }
  return server;
}

async function callScanTool(context: RouteContext, ip: string, scanType: ScanType, rescan: boolean, ctx: ServerContext): Promise<ScanToolResult> {
  const { service } = context;
  try {
    let state = await service.result(ip, scanType);
    if (state.status === 'none' || (rescan && !inFlight(state))) {
      await context.startScan(ip, scanType, 'mcp'); // joins a scan another request started meanwhile
      state = await service.result(ip, scanType);
    }
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined && inFlight(state)) {
      await followScan(context, ip, scanType, ctx, progressToken);
      state = await service.result(ip, scanType);
    }
    return scanToolResult(settled(state));
  } catch (error) {
    // REST's answer to the same error, as a tool result; the details of an unexpected one go to the log only.
    const answer = errorAnswer(error, {}, (unexpected) => context.logError(unexpected, `${scanType}_scan failed`));
    return refusalResult(scanType, answer.body);
  }
}

/** A scan just started or found cannot read as `none` unless its result expired at once. */
function settled(state: ScanResult): Settled {
  if (state.status === 'none') throw new Error(`the ${state.scan_type} scan of ${state.ip} vanished`);
  return state;
}

/**
 * Sends `notifications/progress` (progress = chunks done, total = all
 * chunks) as the scan advances, until it ends, PROGRESS_HOLD_MS pass or
 * the client goes away.
 */
async function followScan(context: RouteContext, ip: string, scanType: ScanType, ctx: ServerContext, progressToken: string | number): Promise<void> {
  const total = SCAN_PROFILES[scanType].totalChunks;
  let reported = -1;
  const report = (done: number): void => {
    if (done <= reported) return; // progress must increase with every notification
    reported = done;
    const params = { progressToken, progress: done, total, message: `${done} of ${total} chunks done` };
    ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {});
  };
  const onEvent = (event: StreamEvent): void => {
    if (event.name === 'scan:complete') return report(total);
    const done = (event.data as { chunks_complete?: unknown }).chunks_complete;
    if (typeof done === 'number') report(done);
  };

  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const watching = await context.service.watch(ip, scanType, (event) => {
    onEvent(event);
    if (event.terminal) stop();
  });
  if (watching === null) return; // ended between the state read and now
  for (const event of watching.initial) onEvent(event);
  const timer = setTimeout(stop, PROGRESS_HOLD_MS);
  ctx.mcpReq.signal.addEventListener('abort', stop, { once: true });
  await stopped;
  clearTimeout(timer);
  ctx.mcpReq.signal.removeEventListener('abort', stop);
  watching.unsubscribe();
}

// The MCP tools fast_scan and deep_scan, bound to one caller. A call never
// waits for a scan to end: it returns the scan in flight, or the last
// unexpired result, or starts a scan (through the same abuse controls as
// REST) and returns its fresh state. Only a call that carries a progress
// token stays open a while, reporting the scan's chunks as progress.
import { McpServer, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';

import { errorAnswer } from '../api/api-error.js';
import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanResult, ScanResultInFlight } from '../api/scan-result.js';
import { SCAN_PROFILES, SCAN_TYPES, type ScanType } from '../api/scan-type.js';
import { VERSION } from '../api/version.js';
import { regionsAskedOf } from '../http/regions-param.js';
import type { RouteContext } from '../http/route-context.js';
import type { StreamEvent } from '../scan/scan-events.js';
import { callerOf } from './mcp-caller.js';
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

const TITLES: Readonly<Record<ScanType, string>> = {
  fast: 'Fast port scan of the caller',
  deep: 'Deep port scan of the caller',
  udp: 'UDP amplifier and leak check of the caller',
};

const DESCRIPTIONS: Readonly<Record<ScanType, string>> = {
  fast:
    `Checks which of ${SCAN_PROFILES.fast.ports.length} common TCP ports (SSH, SMTP, HTTP(S), databases, remote desktop…) ` +
    "of the caller's own public IP address are reachable from the internet; about 10-20 s once started. " +
    HOW_TO_CALL,
  deep:
    "Checks which of all 65,535 TCP ports of the caller's own public IP address are reachable from the internet; " +
    'about 1-5 minutes once started, and rate-limited (by default one deep scan per IP every 5 minutes). ' +
    HOW_TO_CALL,
  udp:
    `Checks whether ${SCAN_PROFILES.udp.ports.length} UDP services that reflect DDoS attacks or leak (DNS, NTP, SNMP, memcached, SSDP, chargen…) ` +
    "answer the internet on the caller's own public IP address: each is sent one harmless request of its protocol, and an open one " +
    'comes with what it answered, its amplification (bytes received ÷ sent) and its risk; a few seconds to a few tens of seconds once started. ' +
    HOW_TO_CALL,
};

const INSTRUCTIONS =
  'selfscan tells a server which of its TCP ports the internet can reach, by scanning the address the ' +
  'request comes from and nothing else. fast_scan covers common ports in seconds, deep_scan every port in minutes, ' +
  'udp_scan whether UDP services that reflect DDoS attacks (open DNS resolvers, NTP, SNMP, memcached…) answer, in seconds.';

const scanToolInput = memoiseJsonSchema(
  z.strictObject({
    rescan: z.boolean().default(false).describe('Start a new scan even if an unexpired result exists. Default false.'),
    regions: z
      .string()
      .optional()
      .describe(
        'Look from several regions at once (cluster deployments): `all`, or region names separated by commas (`NL,FR`). ' +
          'The target is still only the caller; the result adds each region’s view and the ports seen differently. Each region counts as one scan against the limits.',
      ),
  }),
);

type Settled = Exclude<ScanResult, { status: 'none' }>;

const inFlight = (body: ScanResult): body is ScanResultInFlight => body.status === 'queued' || body.status === 'running';

/** An MCP server whose tools scan the caller of the request they serve (mcp-caller.ts). */
export function createScanServer(context: RouteContext): McpServer {
  const server = new McpServer({ name: 'selfscan', version: VERSION }, { instructions: INSTRUCTIONS });
  for (const scanType of SCAN_TYPES) {
    server.registerTool(
      `${scanType}_scan`,
      {
        title: TITLES[scanType],
        description: DESCRIPTIONS[scanType],
        inputSchema: scanToolInput,
        outputSchema: scanToolOutput,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      ({ rescan, regions }, ctx) => callScanTool(context, { ip: callerOf(ctx), scanType, regions }, rescan, ctx),
    );
  }
  return server;
}

/** Whom a tool call scans (the caller), which type, and the regions it asked to look from. */
interface ToolScan {
  ip: string;
  scanType: ScanType;
  regions: string | undefined;
}

async function callScanTool(context: RouteContext, scan: ToolScan, rescan: boolean, ctx: ServerContext): Promise<ScanToolResult> {
  const { service } = context;
  const { ip, scanType } = scan;
  try {
    const regionsAsked = regionsAskedOf(scan.regions);
    let state = await service.result(ip, scanType, regionsAsked);
    if (state.status === 'none' || (rescan && !inFlight(state))) {
      await context.startScan(ip, scanType, 'mcp', undefined, 'no-webhook', regionsAsked); // joins a scan another request started meanwhile
      state = await service.result(ip, scanType, regionsAsked);
    }
    const progressToken = ctx.mcpReq._meta?.progressToken;
    if (progressToken !== undefined && inFlight(state)) {
      await followScan(context, { ip, scanType, regionsAsked }, state.total_chunks, ctx, progressToken);
      state = await service.result(ip, scanType, regionsAsked);
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
async function followScan(
  context: RouteContext,
  scan: { ip: string; scanType: ScanType; regionsAsked: RegionsAsked | undefined },
  total: number,
  ctx: ServerContext,
  progressToken: string | number,
): Promise<void> {
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
  const { ip, scanType, regionsAsked } = scan;
  const listener = (event: StreamEvent): void => {
    onEvent(event);
    if (event.terminal) stop();
  };
  const watching = await context.service.watch(ip, scanType, listener, undefined, regionsAsked);
  if (watching === null) return; // ended between the state read and now
  for (const event of watching.initial) onEvent(event);
  const timer = setTimeout(stop, PROGRESS_HOLD_MS);
  ctx.mcpReq.signal.addEventListener('abort', stop, { once: true });
  await stopped;
  clearTimeout(timer);
  ctx.mcpReq.signal.removeEventListener('abort', stop);
  watching.unsubscribe();
}

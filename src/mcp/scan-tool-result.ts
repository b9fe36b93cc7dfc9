// What fast_scan and deep_scan answer: the ScanResult of the scan's status
// (the same shape GET /v1/{fast,deep} returns), plus `message`, one sentence
// saying what was found or what to do next, and `poll_after_seconds` while
// the scan is in flight; or, for a refused call, the interface's Error
// object. The declared output schema covers both, so a client that checks
// every structuredContent, errors included, finds it valid.
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';

import type { Port } from '../native/scanner.js';
import type { FinishedBody, ScanResultBody } from '../scan/result-view.js';
import { FAIL_REASONS } from '../model/scan-record.js';
import { SCAN_TYPES, type ScanType } from '../scan/scan-types.js';
import { memoiseJsonSchema } from './memoised-json-schema.js';

/** The longest wait a tool result asks for before the next call. */
const MAX_POLL_AFTER_SECONDS = 30;
/** Open ports a message names; the rest are counted. */
const PORTS_NAMED = 10;

const count = z.number().int().min(0);
const port = z.strictObject({
  port: z.number().int().min(1).max(65535),
  state: z.enum(['open', 'closed', 'filtered']),
  service: z.string().nullable().describe('IANA service name of the port, or null.'),
  banner: z.string().nullable().describe('What the service said first (printable, truncated), or null.'),
});
const common = {
  ip: z.string().describe("The scanned address: always the caller's own."),
  scan_type: z.enum(SCAN_TYPES),
  message: z.string().describe('One sentence: what was found, or what to do next.'),
};
const finished = {
  ...common,
  ports_open: z.array(port).describe('Open ports found.'),
  ports_filtered: z.array(port).describe('Ports that did not answer (filtered).'),
  service_banners: z.record(z.string(), z.string()).describe('Banner of each open port that sent one, keyed by port number.'),
  ptr_record: z.string().nullable().describe('Reverse-DNS name of the address, or null.'),
  duration_ms: count,
  completed_at: count.describe('Unix seconds.'),
  expires_at: count.describe('Unix seconds; a call after this starts a new scan.'),
};

/** The tool's structuredContent, by status; `error` instead of `status` for a refused call. */
export const scanToolOutput = memoiseJsonSchema(
  z.union([
    z.strictObject({
      ...common,
      status: z.enum(['queued', 'running']),
      queue_position: count.describe('Scans ahead of this one; 0 once running.'),
      chunks_complete: count,
      total_chunks: count,
      eta_seconds: count.describe('Indicative seconds until results; a hint, not a promise.'),
      poll_after_seconds: z.number().int().min(1).describe('Call the tool again after about this many seconds.'),
    }),
    z.strictObject({ ...finished, status: z.literal('complete') }),
    z.strictObject({
      ...finished,
      status: z.literal('incomplete'),
      partial: z.literal(true).describe('The scan ran out of time: never treat this as a complete scan.'),
      chunks_complete: count,
      total_chunks: count,
    }),
    z.strictObject({
      ...common,
      status: z.literal('failed'),
      chunks_complete: count,
      total_chunks: count,
      fail_reason: z.enum(FAIL_REASONS),
    }),
    z.strictObject({
      error: z.enum(['invalid_target', 'not_available', 'rate_limited', 'unavailable']),
      reason: z.string(),
      retry_after: count.optional().describe('Seconds until a call may succeed (rate limits).'),
      message: z.string(),
    }),
  ]),
);

/** A value of scanToolOutput. */
export type ScanToolOutput = z.infer<typeof scanToolOutput>;

/** A refused call: the code and reason REST would answer with. */
export interface ToolRefusal {
  error: 'invalid_target' | 'not_available' | 'rate_limited' | 'unavailable';
  reason: string;
  retryAfter?: number;
}

/** A tool result whose structuredContent is ScanToolOutput, mirrored as JSON in one text block. */
export type ScanToolResult = CallToolResult & { structuredContent: ScanToolOutput };

const toolName = (scanType: ScanType): string => `${scanType}_scan`;

function portName(port: Port): string {
  return port.service === null ? String(port.port) : `${port.port} ${port.service}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function openPorts(ports: readonly Port[]): string {
  if (ports.length === 0) return 'no open ports';
  const named = ports.slice(0, PORTS_NAMED).map(portName).join(', ');
  const more = ports.length > PORTS_NAMED ? ` and ${ports.length - PORTS_NAMED} more` : '';
  return `${plural(ports.length, 'open port')} (${named}${more})`;
}

function finishedMessage(body: FinishedBody): string {
  const what = `${openPorts(body.ports_open)}, ${body.ports_filtered.length === 0 ? 'none' : body.ports_filtered.length} filtered`;
  if (body.status === 'complete') return `Scan of ${body.ip} complete: ${what}.`;
  return (
    `Scan of ${body.ip} incomplete (out of time after ${body.chunks_complete} of ${body.total_chunks} chunks): ` +
    `${what} so far, a partial result; call ${toolName(body.scan_type)} with rescan: true to try again.`
  );
}

/** Seconds to wait before polling a scan expected in `etaSeconds`. */
function pollAfterSeconds(etaSeconds: number): number {
  return Math.min(Math.max(etaSeconds, 1), MAX_POLL_AFTER_SECONDS);
}

/** The result of a call that found or started the scan in `body` (never `none`). */
export function scanToolResult(body: Exclude<ScanResultBody, { status: 'none' }>): ScanToolResult {
  let output: ScanToolOutput;
  switch (body.status) {
    case 'queued':
    case 'running': {
      const poll = pollAfterSeconds(body.eta_seconds);
      const state =
        body.status === 'queued'
          ? `queued (${body.queue_position === 0 ? 'next in line' : `${plural(body.queue_position, 'scan')} ahead`})`
          : `running: ${body.chunks_complete} of ${plural(body.total_chunks, 'chunk')} done`;
      const message = `Scan of ${body.ip} ${state}; call ${toolName(body.scan_type)} again in about ${poll} s.`;
      output = { ...body, message, poll_after_seconds: poll };
      break;
    }
    case 'complete':
    case 'incomplete':
      // One interface types both statuses, with `partial` and the counters optional: the schema tells them apart.
      output = { ...body, message: finishedMessage(body) } as ScanToolOutput;
      break;
    case 'failed':
      output = {
        ...body,
        message: `Scan of ${body.ip} failed (${body.fail_reason}); call ${toolName(body.scan_type)} with rescan: true to try again.`,
      };
      break;
  }
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
}

/** The result of a call the abuse controls (or a stopping service) turned away. */
export function refusalResult(scanType: ScanType, refusal: ToolRefusal): ScanToolResult {
  const message =
    refusal.retryAfter !== undefined
      ? `Rate limited: call ${toolName(scanType)} again in ${refusal.retryAfter} s.`
      : refusal.error === 'invalid_target'
        ? `Refused: ${refusal.reason}; only the caller's own public IP address can be scanned.`
        : `Refused: ${refusal.reason}.`;
  const output: ScanToolOutput = {
    error: refusal.error,
    reason: refusal.reason,
    ...(refusal.retryAfter !== undefined && { retry_after: refusal.retryAfter }),
    message,
  };
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output, isError: true };
}

// What fast_scan and deep_scan answer: the ScanResult of the scan's status
// (the same shape GET /v1/{fast,deep} returns), plus `message`, one sentence
// saying what was found or what to do next, and `poll_after_seconds` while
// the scan is in flight; or, for a refused call, the interface's Error
// object. The declared output schema covers both, so a client that checks
// every structuredContent, errors included, finds it valid.
import type { CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';

import { ErrorBody } from '../api/error-body.js';
import type { Port } from '../api/port.js';
import { differenceText, vantageStatusText } from '../api/region-views.js';
import {
  type ScanResult,
  ScanResultComplete,
  ScanResultFailed,
  type ScanResultFinished,
  ScanResultIncomplete,
  ScanResultInFlight,
} from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import { memoiseJsonSchema } from './memoised-json-schema.js';

/** The longest wait a tool result asks for before the next call. */
const MAX_POLL_AFTER_SECONDS = 30;
/** Open ports a message names; the rest are counted. */
const PORTS_NAMED = 10;

const message = { message: z.string().meta({ description: 'One sentence: what was found, or what to do next.' }) };

/** The tool's structuredContent: the ScanResult of the scan's status, or the Error body of a refused call, plus a message. */
export const scanToolOutput = memoiseJsonSchema(
  z.union([
    ScanResultInFlight.extend({
      ...message,
      poll_after_seconds: z.int().min(1).meta({ description: 'Call the tool again after about this many seconds.' }),
    }),
    ScanResultComplete.extend(message),
    ScanResultIncomplete.extend(message),
    ScanResultFailed.extend(message),
    ErrorBody.extend(message),
  ]),
);

/** A value of scanToolOutput. */
export type ScanToolOutput = z.output<typeof scanToolOutput>;

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

/** The worst open port's risk and what changed, as a sentence tail; empty when the result says neither. */
function exposure(body: ScanResultFinished): string {
  const parts: string[] = [];
  const worst = body.ports_open.find((port) => port.risk?.severity === body.severity);
  if (worst?.risk !== undefined && body.severity !== 'info') parts.push(`highest severity ${body.severity}: ${worst.risk.why} ${worst.risk.fix}`);
  const { changes } = body;
  if (changes != null && changes.opened.length + changes.closed.length + changes.changed.length > 0) {
    const since = new Date(changes.since * 1000).toISOString();
    const listed = (ports: readonly number[], what: string) => (ports.length === 0 ? [] : [`${what} ${ports.join(', ')}`]);
    const said = [
      ...listed(changes.opened, 'opened'),
      ...listed(changes.closed, 'closed'),
      ...listed(
        changes.changed.map((change) => change.port),
        'changed',
      ),
    ];
    parts.push(`since the scan of ${since}: ${said.join('; ')}.`);
  }
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`;
}

/** A multi-region scan's regions that did not finish and the ports seen differently, as a sentence tail; empty otherwise. */
function vantagesSaid(body: ScanResultFinished): string {
  if (body.vantages === undefined) return '';
  const unfinished = body.vantages.filter((vantage) => vantage.status !== 'complete').map((vantage) => `${vantage.region} ${vantageStatusText(vantage)}`);
  const differences = (body.differences ?? []).slice(0, PORTS_NAMED).map(differenceText);
  const more = (body.differences?.length ?? 0) > PORTS_NAMED ? ` and ${body.differences!.length - PORTS_NAMED} more` : '';
  const seen = differences.length === 0 ? 'every region saw the same' : `seen differently: ${differences.join(' | ')}${more}`;
  const regions = `From ${body.vantages.map((vantage) => vantage.region).join(', ')}`;
  return ` ${regions}${unfinished.length === 0 ? '' : ` (${unfinished.join(', ')})`}: ${seen}.`;
}

function finishedMessage(body: ScanResultFinished): string {
  const what = `${openPorts(body.ports_open)}, ${body.ports_filtered.length === 0 ? 'none' : body.ports_filtered.length} filtered`;
  if (body.status === 'complete') return `Scan of ${body.ip} complete: ${what}.${vantagesSaid(body)}${exposure(body)}`;
  return (
    `Scan of ${body.ip} incomplete (out of time after ${body.chunks_complete} of ${body.total_chunks} chunks): ` +
    `${what} so far, a partial result; call ${toolName(body.scan_type)} with rescan: true to try again.${vantagesSaid(body)}${exposure(body)}`
  );
}

/** Seconds to wait before polling a scan expected in `etaSeconds`. */
function pollAfterSeconds(etaSeconds: number): number {
  return Math.min(Math.max(etaSeconds, 1), MAX_POLL_AFTER_SECONDS);
}

/** The result of a call that found or started the scan in `body` (never `none`). */
export function scanToolResult(body: Exclude<ScanResult, { status: 'none' }>): ScanToolResult {
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
      output = { ...body, message: finishedMessage(body) };
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

/** The result of a call the abuse controls (or a stopping service) turned away: its Error body and a message. */
export function refusalResult(scanType: ScanType, refusal: ErrorBody): ScanToolResult {
  const message =
    refusal.retry_after !== undefined
      ? `Rate limited: call ${toolName(scanType)} again in ${refusal.retry_after} s.`
      : refusal.error === 'invalid_target'
        ? `Refused: ${refusal.reason}; only the caller's own public IP address can be scanned.`
        : `Refused: ${refusal.reason}.`;
  const output: ScanToolOutput = { ...refusal, message };
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output, isError: true };
}

// SIP (RFC 3261) on UDP 5060: an OPTIONS request, the capability query
// every user agent and proxy answers (most with 200 OK, some with 401/403/
// 404), often naming its software in a Server or User-Agent header. The
// reply must carry our Call-ID, fixed like the branch and the tag.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const CALL_ID = 'selfscan-4f1c2b9e@nm';
const OPTIONS_REQUEST = [
  'OPTIONS sip:nm SIP/2.0',
  'Via: SIP/2.0/UDP nm;branch=z9hG4bK-selfscan-4f1c2b9e;rport',
  'From: <sip:selfscan@nm>;tag=selfscan-7d3a',
  'To: <sip:nm@nm>',
  `Call-ID: ${CALL_ID}`,
  'CSeq: 1 OPTIONS',
  'Max-Forwards: 70',
  'Contact: <sip:selfscan@nm>',
  'Accept: application/sdp',
  'Content-Length: 0',
  '',
  '',
].join('\r\n');
const STATUS_LINE = /^SIP\/2\.0 ([1-6]\d\d)(?: |$)/;
/** A header's name (compact forms: `i` is Call-ID) and value. */
const HEADER_LINE = /^([A-Za-z-]+)[ \t]*:[ \t]*(.*)$/;

/** The header values of `lines` (after the status line, up to the blank line), by lower-case name. */
function headersOf(lines: string[]): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    if (line === '') break;
    const match = HEADER_LINE.exec(line);
    if (match === null) continue;
    const name = match[1]!.toLowerCase();
    if (!headers.has(name)) headers.set(name, match[2]!.trim());
  }
  return headers;
}

function readSip(_request: number, reply: Uint8Array): UdpReading | null {
  const lines = new TextDecoder('latin1').decode(reply).split(/\r?\n/);
  const status = STATUS_LINE.exec(lines[0]!);
  if (status === null) return null;
  const headers = headersOf(lines);
  if ((headers.get('call-id') ?? headers.get('i')) !== CALL_ID) return null;
  const software = headers.get('server') ?? headers.get('user-agent');
  const server = software === undefined ? null : printableText(software) || null;
  const code = Number(status[1]);
  return {
    evidence: `answered OPTIONS with ${printableText(lines[0]!.slice('SIP/2.0 '.length))}${server ? ` (${server})` : ''}`,
    details: { status: code, server },
  };
}

export const sipProbe: UdpProbe = {
  service: 'sip',
  port: 5060,
  requests: [{ name: 'OPTIONS sip:nm', bytes: new TextEncoder().encode(OPTIONS_REQUEST) }],
  read: readSip,
};

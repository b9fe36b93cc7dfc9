// What an open UDP port answered the udp scan's probe (`facts.udp`), in the
// words every report uses: how many times the bytes it was sent it answered
// with, and the evidence of each answer.
import type { Port } from '../api/port.js';
import type { UdpFacts } from '../api/port-facts.js';
import type { ScanResultFinal } from '../api/scan-result.js';

/** An open port with what it answered the udp probe. */
export type UdpPort = Port & { facts: { udp: UdpFacts } };

/** The open ports of `result` with their udp facts; null when the server reported them for not every one (or the scan failed). */
export function udpAnswers(result: ScanResultFinal): UdpPort[] | null {
  if (result.status === 'failed') return null;
  const answered = result.ports_open.filter((port): port is UdpPort => port.facts?.udp !== undefined);
  return answered.length === result.ports_open.length ? answered : null;
}

/** `12.4× (15 bytes sent, 186 received)`. */
export function amplificationText(udp: UdpFacts): string {
  return `${udp.amplification}× (${udp.bytes_sent} bytes sent, ${udp.bytes_received} received)`;
}

/** One line of an open UDP port: `11211/udp memcached, critical, amplification 12.4× (…): evidence; evidence`. */
export function udpPortLine(port: UdpPort): string {
  const { udp } = port.facts;
  const severity = port.risk === undefined ? '' : `, ${port.risk.severity}`;
  return `${port.port}/udp ${udp.service}${severity}, amplification ${amplificationText(udp)}: ${udp.evidence.join('; ') || 'no evidence'}`;
}

// A udp scan's result in the page's words: a port as `53/udp`, how much
// larger its answers were than the requests (an amplifier's measure), the
// bytes each way, the named facts of its answers, and what a port that
// never answered or a scan where none answered means. One place for the
// script and the no-JavaScript pages; each escapes the words its own way
// (evidence and details come from the scanned host). No DOM, no Node, no
// zod: the browser bundle imports it.
import type { UdpFacts } from '../api/port-facts.js';
import type { FactLine } from './exposure-words.js';

/** A UDP port as people write it: `53/udp`. */
export const udpPortName = (port: number): string => `${port}/udp`;

/** What a port that never answered is: UDP cannot tell a silent service from a firewall. */
export const UDP_SILENT_WORDS = 'no answer (open or filtered)';

/** The sentence shown when no UDP service answered; `family`: the pane's, when the page names it. */
export function noUdpAnswerWords(family?: string): string {
  return `No UDP service answered${family === undefined ? '' : ` (${family})`}: not an amplifier.`;
}

/** The sentence shown when every UDP port answered or was refused. */
export const NO_UDP_SILENT = 'No UDP port stayed silent: each answered or was refused.';

/** An amplification factor as it is read: `93×` from 93.4, `2.5×` from 2.46, `1×` from 1.0. */
export function factorWords(factor: number): string {
  return `${factor >= 10 ? Math.round(factor) : Math.round(factor * 10) / 10}×`;
}

/** How much larger the answers were than the requests: `answers 93× the bytes it is sent`. */
export function amplificationWords(factor: number): string {
  return `answers ${factorWords(factor)} the bytes it is sent`;
}

/** The bytes each way: `15 bytes sent, 1395 bytes received`. */
export function udpBytesWords(udp: Pick<UdpFacts, 'bytes_sent' | 'bytes_received'>): string {
  const bytes = (count: number): string => `${count} ${count === 1 ? 'byte' : 'bytes'}`;
  return `${bytes(udp.bytes_sent)} sent, ${bytes(udp.bytes_received)} received`;
}

/** The named facts of the answers: `version 1.6.18, recursive yes`; empty when there are none. */
export function udpDetailsWords(details: UdpFacts['details']): string {
  const value = (detail: UdpFacts['details'][string]): string =>
    detail === true ? 'yes' : detail === false ? 'no' : detail === null ? 'none' : String(detail);
  return Object.entries(details)
    .map(([key, detail]) => `${key.replace(/_/g, ' ')} ${value(detail)}`)
    .join(', ');
}

/** What a UDP service's answers showed, one line each: amplification, bytes, named facts (the evidence is a list of its own). */
export function udpFactLines(udp: UdpFacts): FactLine[] {
  const details = udpDetailsWords(udp.details);
  return [
    { term: 'Amplification', text: amplificationWords(udp.amplification) },
    { term: 'Bytes', text: udpBytesWords(udp) },
    ...(details === '' ? [] : [{ term: 'Details', text: details }]),
  ];
}

// WS-Discovery (2005/04) on UDP 3702: a SOAP-over-UDP Probe for any type,
// as a client looking for cameras and printers multicasts it. A device
// answers ProbeMatches (its d:Types and d:XAddrs, the URLs of its web
// services) relating to our fixed MessageID; some answer a SOAP Fault,
// which relates to it too. Meant for the local network; a large reflector.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const MESSAGE_ID = 'urn:uuid:6a0c3e4e-7b1d-4f0a-9c5e-2d8f1b3a5c7e';
const PROBE = [
  '<?xml version="1.0" encoding="utf-8"?>',
  '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing"',
  ' xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery"><s:Header>',
  '<a:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe</a:Action>',
  `<a:MessageID>${MESSAGE_ID}</a:MessageID>`,
  '<a:To>urn:schemas-xmlsoap-org:ws:2005:04:discovery</a:To>',
  '</s:Header><s:Body><d:Probe/></s:Body></s:Envelope>',
].join('');
/** Longest Types or XAddrs text kept, in characters. */
const MAX_LIST_CHARS = 120;

/** The text of the first element named `name`, whatever its namespace prefix, or null. */
function elementText(xml: string, name: string): string | null {
  const match = new RegExp(`<(?:[\\w.-]+:)?${name}(?:\\s[^>]*)?>([^<]*)</`).exec(xml);
  if (match === null) return null;
  return printableText(match[1]!.trim().replace(/\s+/g, ' '), MAX_LIST_CHARS) || null;
}

function readWsDiscovery(_request: number, reply: Uint8Array): UdpReading | null {
  const xml = new TextDecoder('utf-8').decode(reply);
  if (elementText(xml, 'RelatesTo') !== MESSAGE_ID) return null;
  if (/<(?:[\w.-]+:)?Fault[\s>]/.test(xml)) return { evidence: 'answered our Probe with a SOAP Fault', details: { types: null, xaddrs: null } };
  if (!/<(?:[\w.-]+:)?ProbeMatches[\s>/]/.test(xml)) return null;
  const types = elementText(xml, 'Types');
  const xaddrs = elementText(xml, 'XAddrs');
  return {
    evidence: `answered our Probe with ProbeMatches${types ? ` of ${types}` : ''}${xaddrs ? ` at ${xaddrs}` : ''}`,
    details: { types, xaddrs },
  };
}

export const wsDiscoveryProbe: UdpProbe = {
  service: 'ws-discovery',
  port: 3702,
  requests: [{ name: 'SOAP-over-UDP Probe (any type)', bytes: new TextEncoder().encode(PROBE) }],
  read: readWsDiscovery,
};

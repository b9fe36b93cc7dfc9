// Ubiquiti's discovery service on UDP 10001: the version 1 request (01 00
// 00 00) draws a list of TLVs (type, 16-bit length, value) naming the
// device's model, firmware, host name and addresses: meant for the local
// network, and abused as an amplifier.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const DISCOVERY_V1 = Uint8Array.of(0x01, 0x00, 0x00, 0x00);
const HEADER_BYTES = 4;
const TLV_HEADER_BYTES = 3;
const TLV = { firmware: 0x03, hostname: 0x0b, modelShort: 0x0c, modelFull: 0x14 } as const;

/** The TLVs of `body` by type (the first of each), or null unless they fill it exactly. */
function tlvsOf(body: Uint8Array): Map<number, Uint8Array> | null {
  const tlvs = new Map<number, Uint8Array>();
  let offset = 0;
  while (offset < body.length) {
    if (offset + TLV_HEADER_BYTES > body.length) return null;
    const type = body[offset]!;
    const length = (body[offset + 1]! << 8) | body[offset + 2]!;
    const start = offset + TLV_HEADER_BYTES;
    if (start + length > body.length) return null;
    if (!tlvs.has(type)) tlvs.set(type, body.subarray(start, start + length));
    offset = start + length;
  }
  return tlvs;
}

function textOf(value: Uint8Array | undefined): string | null {
  return value === undefined ? null : printableText(new TextDecoder('latin1').decode(value)) || null;
}

function readUbiquiti(_request: number, reply: Uint8Array): UdpReading | null {
  if (reply.length <= HEADER_BYTES || reply[0] !== 0x01 || reply[1] !== 0x00) return null;
  const length = (reply[2]! << 8) | reply[3]!;
  if (length !== reply.length - HEADER_BYTES) return null;
  const tlvs = tlvsOf(reply.subarray(HEADER_BYTES));
  if (tlvs === null) return null;
  const model = textOf(tlvs.get(TLV.modelFull)) ?? textOf(tlvs.get(TLV.modelShort));
  const firmware = textOf(tlvs.get(TLV.firmware));
  const hostname = textOf(tlvs.get(TLV.hostname));
  const named = [model, firmware && `firmware ${firmware}`, hostname && `named ${hostname}`].filter(Boolean);
  return {
    evidence: `answered discovery with ${tlvs.size} fields${named.length > 0 ? `: ${named.join(', ')}` : ''}`,
    details: { model, firmware, hostname },
  };
}

export const ubiquitiProbe: UdpProbe = {
  service: 'ubiquiti',
  port: 10001,
  requests: [{ name: 'discovery request, version 1', bytes: DISCOVERY_V1 }],
  read: readUbiquiti,
};

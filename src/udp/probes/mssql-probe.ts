// The SQL Server Browser ([MC-SQLR]) on UDP 1434: CLNT_UCAST_EX (one byte,
// 0x03) asks for every instance on the host; the Browser answers SVR_RESP
// (0x05, a little-endian length, then `ServerName;X;InstanceName;Y;...;;`
// per instance), naming servers, instances, versions and ports to anyone.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const CLNT_UCAST_EX = 0x03;
const SVR_RESP = 0x05;
const HEADER_BYTES = 3;

/** Each instance's `key;value;...` pairs, from the `;;`-separated list. */
function instancesOf(text: string): Map<string, string>[] {
  return text
    .split(';;')
    .filter((record) => record.length > 0)
    .map((record) => {
      const fields = record.split(';');
      const pairs = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) pairs.set(fields[i]!.toLowerCase(), fields[i + 1]!);
      return pairs;
    });
}

function readMssql(_request: number, reply: Uint8Array): UdpReading | null {
  if (reply.length <= HEADER_BYTES || reply[0] !== SVR_RESP) return null;
  const length = reply[1]! | (reply[2]! << 8);
  if (length === 0 || length > reply.length - HEADER_BYTES) return null;
  const text = new TextDecoder('latin1').decode(reply.subarray(HEADER_BYTES, HEADER_BYTES + length));
  if (!text.startsWith('ServerName;')) return null;
  const instances = instancesOf(text);
  const first = instances[0]!;
  const serverName = printableText(first.get('servername') ?? '') || null;
  const version = printableText(first.get('version') ?? '') || null;
  return {
    evidence: `listed ${instances.length} SQL Server instance${instances.length === 1 ? '' : 's'}${serverName ? ` of ${serverName}` : ''}`,
    details: { instances: instances.length, server_name: serverName, version },
  };
}

export const mssqlProbe: UdpProbe = {
  service: 'mssql',
  port: 1434,
  requests: [{ name: 'CLNT_UCAST_EX (list every instance)', bytes: Uint8Array.of(CLNT_UCAST_EX) }],
  read: readMssql,
};

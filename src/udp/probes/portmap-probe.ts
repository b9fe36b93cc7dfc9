// The RPC portmapper (port 111): an ONC RPC call of PMAPPROC_DUMP (program
// 100000, version 2, procedure 4), as `rpcinfo -p` sends. The answer lists
// every RPC service of the host and its port, to anyone, and amplifies
// (Shadowserver's "Accessible Portmapper" report).
import type { UdpProbe } from './udp-probe.js';

const XID = 0x7e11f00d;
const PORTMAP_PROGRAM = 100000;
const PORTMAP_VERSION = 2;
const PMAPPROC_DUMP = 4;
const RPC_VERSION = 2;
const MESSAGE = { call: 0, reply: 1 } as const;
const MSG_ACCEPTED = 0;
const SUCCESS = 0;
const IPPROTO_UDP = 17;
/** Mappings read at most: a real list is dozens; a hostile one stops here. */
const MAX_MAPPINGS = 4096;

/** Call header: xid, CALL, RPC version, program, version, procedure, AUTH_NULL credentials and verifier. */
function dumpCall(): Uint8Array {
  const words = [XID, MESSAGE.call, RPC_VERSION, PORTMAP_PROGRAM, PORTMAP_VERSION, PMAPPROC_DUMP, 0, 0, 0, 0];
  const packet = new Uint8Array(words.length * 4);
  const view = new DataView(packet.buffer);
  for (const [i, word] of words.entries()) view.setUint32(i * 4, word);
  return packet;
}

/** The mappings of a DUMP reply (program, version, protocol, port each), or null if it is not one. */
function readMappings(reply: Uint8Array): { protocol: number }[] | null {
  const view = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
  const word = (offset: number): number | null => (offset + 4 <= reply.length ? view.getUint32(offset) : null);
  if (word(0) !== XID || word(4) !== MESSAGE.reply || word(8) !== MSG_ACCEPTED) return null;
  const verifierLength = word(16);
  if (verifierLength === null || verifierLength > 400) return null;
  let offset = 20 + Math.ceil(verifierLength / 4) * 4;
  if (word(offset) !== SUCCESS) return null;
  offset += 4;
  const mappings: { protocol: number }[] = [];
  for (let follows = word(offset); follows !== 0; follows = word(offset)) {
    if (follows !== 1 || offset + 20 > reply.length || mappings.length >= MAX_MAPPINGS) return null;
    mappings.push({ protocol: view.getUint32(offset + 12) });
    offset += 20;
  }
  return mappings;
}

export const portmapProbe: UdpProbe = {
  service: 'portmap',
  port: 111,
  requests: [{ name: 'ONC RPC portmapper DUMP (program 100000 v2, procedure 4)', bytes: dumpCall() }],
  read(_request, reply) {
    const mappings = readMappings(reply);
    if (mappings === null) return null;
    const udp = mappings.some((mapping) => mapping.protocol === IPPROTO_UDP);
    return { evidence: `lists ${mappings.length} RPC services to anyone${udp ? ', some over UDP' : ''}`, details: { programs: mappings.length, udp } };
  },
};

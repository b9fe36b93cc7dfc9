// OpenVPN on UDP 1194: a P_CONTROL_HARD_RESET_CLIENT_V2 (opcode 7, key id
// 0, a fixed session id, message packet id 0, no payload), the first
// packet of every session. A server without tls-auth or tls-crypt answers
// P_CONTROL_HARD_RESET_SERVER_V2 (opcode 8) acknowledging our packet 0 of
// our session; one with them drops what lacks its key, and stays silent.
import type { UdpProbe, UdpReading } from './udp-probe.js';

const OPCODE_SHIFT = 3;
const HARD_RESET_CLIENT_V2 = 7;
const HARD_RESET_SERVER_V2 = 8;
const SESSION_ID = Uint8Array.of(0x5e, 0x1f, 0x5c, 0xa1, 0x9e, 0x0b, 0x37, 0xd4);
const SESSION_ID_BYTES = 8;
const PACKET_ID_BYTES = 4;

/** Opcode and key id 0, our session id, an empty ACK array, message packet id 0. */
function hardResetClient(): Uint8Array {
  const packet = new Uint8Array(1 + SESSION_ID_BYTES + 1 + PACKET_ID_BYTES);
  packet[0] = HARD_RESET_CLIENT_V2 << OPCODE_SHIFT;
  packet.set(SESSION_ID, 1);
  return packet;
}

/** Whether the ACK array at `offset` acknowledges our packet 0 of our session, and the packet's own id follows it. */
function acksOurReset(reply: Uint8Array, offset: number): boolean {
  const count = reply[offset];
  if (count === undefined || count === 0) return false;
  const ids = offset + 1;
  const remoteSession = ids + count * PACKET_ID_BYTES;
  if (remoteSession + SESSION_ID_BYTES + PACKET_ID_BYTES > reply.length) return false;
  for (let i = 0; i < SESSION_ID_BYTES; i++) if (reply[remoteSession + i] !== SESSION_ID[i]) return false;
  for (let id = 0; id < count; id++) {
    const at = ids + id * PACKET_ID_BYTES;
    if ((reply[at]! | reply[at + 1]! | reply[at + 2]! | reply[at + 3]!) === 0) return true;
  }
  return false;
}

function readOpenvpn(_request: number, reply: Uint8Array): UdpReading | null {
  if (reply.length < 1 + SESSION_ID_BYTES + 1 || reply[0]! >> OPCODE_SHIFT !== HARD_RESET_SERVER_V2) return null;
  if (!acksOurReset(reply, 1 + SESSION_ID_BYTES)) return null;
  return { evidence: 'answered a client hard reset with a server hard reset: an OpenVPN server without tls-auth', details: { reset: true } };
}

export const openvpnProbe: UdpProbe = {
  service: 'openvpn',
  port: 1194,
  requests: [{ name: 'P_CONTROL_HARD_RESET_CLIENT_V2', bytes: hardResetClient() }],
  read: readOpenvpn,
};

// A connection's peer as uWS gives it (its address bytes and text), taken
// when Node accepts the connection: after the socket closes Node no longer
// knows it, and an abort handler may still ask.
import type { Socket } from 'node:net';

import ipaddr from 'ipaddr.js';

export interface PeerAddress {
  /** 4 or 16 bytes. */
  bytes: ArrayBuffer;
  /** The address as text, UTF-8. */
  text: ArrayBuffer;
}

const peers = new WeakMap<Socket, PeerAddress>();
const UNKNOWN: PeerAddress = toPeer('0.0.0.0');

/** Notes the peer of a new connection. */
export function notePeer(socket: Socket): void {
  const address = socket.remoteAddress;
  if (address !== undefined) peers.set(socket, toPeer(address));
}

export function peerOf(socket: Socket): PeerAddress {
  let peer = peers.get(socket);
  if (peer === undefined) {
    const address = socket.remoteAddress;
    if (address === undefined) return UNKNOWN;
    peers.set(socket, (peer = toPeer(address)));
  }
  return peer;
}

function toPeer(address: string): PeerAddress {
  const plain = address.replace(/%.*$/, ''); // a link-local zone is not part of the address
  const bytes = Uint8Array.from(ipaddr.parse(plain).toByteArray());
  const text = new TextEncoder().encode(plain);
  return { bytes: bytes.buffer, text: text.buffer as ArrayBuffer };
}

// Connections whose last answer closes them (a refused request, a parse
// error): RFC 9112 §9.6 has the server read nothing after it, so a request
// Node parses behind it on such a connection is dropped, not answered.
import type { Socket } from 'node:net';

const closing = new WeakSet<Socket>();

/** Marks `socket` closing; false when it was already. */
export function markClosing(socket: Socket): boolean {
  if (closing.has(socket)) return false;
  closing.add(socket);
  return true;
}

export function isClosing(socket: Socket): boolean {
  return closing.has(socket);
}

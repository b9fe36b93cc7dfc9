// libuv accepts one connection per listening handle per turn of the event
// loop (since libuv 1.45, libuv/libuv#3696). When a thousand callers connect
// within a second and each turn also answers the requests that arrived, a
// turn takes milliseconds, so Node's front accepted ~500 connections a
// second and the rest waited in the kernel's queue, up to half a second.
// (uSockets accepts until the queue is empty.) Each lane is one more handle
// on a duplicate descriptor of the same listening socket, so one more
// accept per turn; a lane's connection is handed to the HTTP server as its
// own would be. The descriptors come from the native addon, loaded here on
// demand: an API node may run without it (test/unit/roles.test.ts), and
// then, like a handle that shows no descriptor, it listens without lanes.
import { Server as NetServer, type Server, type Socket } from 'node:net';

/**
 * Accepts per turn beyond the listening handle's own. In bench:load's burst
 * (a thousand callers of every flow in a second) a turn takes tens of
 * milliseconds: 8 accepts a turn left new callers ~0.3 s in the queue, 32
 * kept up (first requests' p99 ~0.2 s, the loop's own limit), 128 gained
 * nothing more.
 */
export const EXTRA_ACCEPT_LANES = 31;

/** The addon's duplicateDescriptor, or null where the addon does not load. */
async function duplicator(): Promise<((fd: number) => number) | null> {
  try {
    const { native } = await import('../native/binding.js');
    return (fd) => native.duplicateDescriptor(fd);
  } catch {
    return null;
  }
}

/**
 * Opens `count` lanes beside `server`'s listening socket (listening with
 * `backlog`); each connection they accept is emitted on `server` as its
 * own. Resolves to the function that closes them.
 */
export async function openAcceptLanes(server: Server, backlog: number, count = EXTRA_ACCEPT_LANES): Promise<() => void> {
  const duplicate = await duplicator();
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (duplicate === null || fd === undefined || fd < 0 || !server.listening) return () => {};
  const lanes: NetServer[] = [];
  const handOver = (socket: Socket): void => {
    server.emit('connection', socket);
  };
  const close = (): void => {
    for (const lane of lanes.splice(0)) lane.close();
  };
  try {
    for (let i = 0; i < count; i++) {
      // The same socket options as Node's HTTP server gives its own connections.
      const lane = new NetServer({ allowHalfOpen: true, noDelay: true }, handOver);
      lane.on('error', (error) => server.emit('error', error)); // an accept that fails, as the server's own would
      // listen() on the socket again sets its backlog: Node takes it from the argument, not from the options of an fd.
      lane.listen({ fd: duplicate(fd) }, backlog);
      lanes.push(lane);
    }
  } catch (error) {
    close(); // out of descriptors (EMFILE from the duplicate): no lane is left holding the socket open
    throw error;
  }
  return close;
}

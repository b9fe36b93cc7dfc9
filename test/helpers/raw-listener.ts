// A TCP listener on a loopback address whose connections a test handles
// itself (a hostile server, a protocol-shaped responder), counting how many
// were open at once, and that destroys them all on close.
import { createServer, type Socket } from 'node:net';

export interface RawListener {
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Most connections open at the same time so far. */
  readonly mostAtOnce: number;
  close(): Promise<void>;
}

/** Listens on `host:port`, calling `onSocket` for each connection (socket errors are ignored). */
export async function listenRaw(host: string, port: number, onSocket: (socket: Socket) => void): Promise<RawListener> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let mostAtOnce = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    mostAtOnce = Math.max(mostAtOnce, sockets.size);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: 1024 }, resolve);
  });
  return {
    get accepted() {
      return accepted;
    },
    get mostAtOnce() {
      return mostAtOnce;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

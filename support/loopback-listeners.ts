// TCP listeners on a loopback address, so a scan of that address has known
// open ports. Each greets with `banner` (or stays silent when null).
import { createServer, type Server, type Socket } from 'node:net';

export interface Listeners {
  ports: number[];
  close(): Promise<void>;
}

export async function listenOn(address: string, ports: readonly number[], banner: string | null = null): Promise<Listeners> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  for (const port of ports) {
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      if (banner !== null) socket.end(`${banner}\r\n`);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: address, port, backlog: 1024 }, resolve);
    });
    servers.push(server);
  }
  return {
    ports: [...ports],
    close: async () => {
      for (const socket of sockets) socket.destroy(); // a silent listener's peers may still be connected
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

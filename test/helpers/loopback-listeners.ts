// TCP listeners on a loopback address, so a scan of that address has known
// open ports. Each greets with `banner` (or stays silent when null).
import { createServer, type Server } from 'node:net';

export interface Listeners {
  ports: number[];
  close(): Promise<void>;
}

export async function listenOn(address: string, ports: readonly number[], banner: string | null = null): Promise<Listeners> {
  const servers: Server[] = [];
  for (const port of ports) {
    const server = createServer((socket) => {
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
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    },
  };
}

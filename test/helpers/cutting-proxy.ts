// A TCP proxy in front of the server that cuts an event stream, as a proxy
// with a short idle timeout does: it relays every connection (from the
// caller's own address, so the server still scans the caller), and on a
// `GET /v2/` connection ends both sides right after the first
// `scan:progress` event has gone through.
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface CuttingProxy {
  url: string;
  /** How many streams it has cut. */
  cuts: number;
  close(): Promise<void>;
}

export async function startCuttingProxy(target: { host: string; port: number }): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  const state = { cuts: 0 };
  const server: Server = createServer((client) => {
    const upstream = connect({ host: target.host, port: target.port, localAddress: client.remoteAddress });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    let request = '';
    let response = '';
    client.on('data', (bytes: Buffer) => {
      request += bytes.toString('latin1');
      upstream.write(bytes);
    });
    upstream.on('data', (bytes: Buffer) => {
      if (!request.startsWith('GET /v2/')) return void client.write(bytes);
      response += bytes.toString('latin1');
      const event = response.indexOf('event: scan:progress');
      const end = event < 0 ? -1 : response.indexOf('\n\n', event);
      if (end < 0) return void client.write(bytes);
      // Through the end of the first progress event, then cut.
      const sent = response.length - bytes.length;
      client.end(bytes.subarray(0, end + 2 - sent));
      upstream.destroy();
      state.cuts++;
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get cuts() {
      return state.cuts;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

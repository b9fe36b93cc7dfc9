// Many requests at the same instant: connections are opened first, then
// every request is written in one synchronous loop, so the server sees them
// together (an HTTP client pool would spread them out).
import { connect, type Socket } from 'node:net';

export interface BurstResponse {
  status: number;
  body: unknown;
}

export async function burst(port: number, localAddress: string, request: string, count: number): Promise<BurstResponse[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  const responses = sockets.map(
    (socket) =>
      new Promise<BurstResponse>((resolve, reject) => {
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          text += chunk;
          const split = text.indexOf('\r\n\r\n');
          const length = /content-length: (\d+)/i.exec(text)?.[1];
          if (split < 0 || length === undefined || text.length - split - 4 < Number(length)) return;
          socket.destroy();
          resolve({ status: Number(text.slice(9, 12)), body: JSON.parse(text.slice(split + 4)) });
        });
        socket.once('error', reject);
      }),
  );
  for (const socket of sockets) socket.write(request);
  return Promise.all(responses);
}

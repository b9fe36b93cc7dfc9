// A replication link that lags, for tests: a TCP relay on a loopback port
// that holds every chunk, both ways, for `delayMs` before passing it on.
// A replica told to replicate from it is `delayMs` behind its primary, as
// one across a slow network is; when either side goes away (the primary
// killed with kill -9) the relay drops whatever it still holds, so the
// writes in flight are lost, as they would be on the wire. `hold()` stops
// the link passing anything on from then until it is cut: a replica that
// cannot keep up at all, for a test that must not hang on timing.
import { connect, createServer, type Server, type Socket } from 'node:net';

const HOST = '127.0.0.1';

export interface LaggingLink {
  port: number;
  /** From now on nothing crosses, either way; what is held is dropped when a side goes away. */
  hold(): void;
  close(): Promise<void>;
}

/** Listens on `port` and relays each connection to `targetPort`, `delayMs` late. */
export async function startLaggingLink(port: number, targetPort: number, delayMs: number): Promise<LaggingLink> {
  const sockets = new Set<Socket>();
  let held = false;
  const server: Server = createServer((near) => {
    const far = connect({ host: HOST, port: targetPort });
    let open = true;
    const cut = (): void => {
      open = false; // whatever is still held is dropped
      near.destroy();
      far.destroy();
    };
    for (const [from, to] of [
      [near, far],
      [far, near],
    ] as const) {
      sockets.add(from);
      from.on('close', () => {
        sockets.delete(from);
        cut();
      });
      from.on('error', cut);
      from.on('data', (bytes: Buffer) => {
        setTimeout(() => {
          if (open && !held) to.write(bytes);
        }, delayMs);
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, resolve);
  });
  return {
    port,
    hold: () => {
      held = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

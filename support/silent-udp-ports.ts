// UDP ports of one address that take every datagram and answer nothing, no
// ICMP port unreachable either: what a udp scan must call filtered, and
// what keeps its sweep waiting on silence. Closed by the test.
import dgram from 'node:dgram';

export interface SilentUdpPorts {
  close(): Promise<void>;
}

/** Binds a socket that never answers on each of `ports` of IPv4 `address`. */
export async function silentUdpPorts(address: string, ports: readonly number[]): Promise<SilentUdpPorts> {
  const sockets = await Promise.all(
    ports.map(async (port) => {
      const socket = dgram.createSocket('udp4');
      await new Promise<void>((resolve) => socket.bind(port, address, resolve));
      return socket;
    }),
  );
  return {
    close: async () => {
      await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))));
    },
  };
}

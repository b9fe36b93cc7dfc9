// UDP ports of one address that take every datagram and answer nothing, no
// ICMP port unreachable either: what a udp scan must call filtered, and
// what keeps its sweep waiting on silence. Closed by the test.
import dgram from 'node:dgram';

export interface SilentUdpPorts {
  /** The addresses datagrams came from, to any of the ports. */
  senders(): Set<string>;
  close(): Promise<void>;
}

/** Binds a socket that never answers on each of `ports` of IPv4 `address`. */
export async function silentUdpPorts(address: string, ports: readonly number[]): Promise<SilentUdpPorts> {
  const senders = new Set<string>();
  const sockets = await Promise.all(
    ports.map(async (port) => {
      const socket = dgram.createSocket('udp4');
      socket.on('message', (_data, from) => senders.add(from.address));
      await new Promise<void>((resolve) => socket.bind(port, address, resolve));
      return socket;
    }),
  );
  return {
    senders: () => new Set(senders),
    close: async () => {
      await Promise.all(sockets.map((socket) => new Promise<void>((resolve) => socket.close(() => resolve()))));
    },
  };
}

// One connected UDP socket per probed port. Connected, because only a
// connected socket is told of the ICMP port unreachable its datagram drew
// (the kernel reports it as ECONNREFUSED on the next read, and the socket
// stays usable); an unconnected one never sees it. Datagrams from any other
// address or port never reach a connected socket either: for a service that
// answers from a port of its own (TFTP), an unconnected sibling bound to
// the same local port hears the target's other ports, while ICMP about
// our datagrams still reaches the connected socket, the one that sent them.
import dgram from 'node:dgram';

/** What a port's socket reports. */
export interface UdpPortEvents {
  reply(data: Buffer): void;
  /** An ICMP port unreachable (ICMPv6 port unreachable) answered a datagram. */
  refused(): void;
}

export class UdpPortSocket {
  private readonly socket: dgram.Socket;
  private sibling: dgram.Socket | null = null;
  private closed = false;
  /** Bytes of every datagram sent and received, retries included. */
  bytesSent = 0;
  bytesReceived = 0;

  private constructor(
    socket: dgram.Socket,
    readonly port: number,
  ) {
    this.socket = socket;
  }

  /**
   * A socket connected to `host`:`port`, sending from `localAddress` (the
   * kernel's choice when undefined); `events` hears its replies and
   * refusals, and with `anyPort` the target's answers from its other ports.
   */
  static async open(host: string, port: number, events: UdpPortEvents, anyPort = false, localAddress?: string): Promise<UdpPortSocket> {
    const type = host.includes(':') ? 'udp6' : 'udp4';
    const socket = dgram.createSocket({ type, reuseAddr: anyPort });
    const opened = new UdpPortSocket(socket, port);
    const heard = (data: Buffer) => {
      opened.bytesReceived += data.length;
      events.reply(data);
    };
    socket.on('message', heard);
    try {
      if (anyPort) {
        const sibling = dgram.createSocket({ type, reuseAddr: true });
        opened.sibling = sibling;
        sibling.on('message', (data, from) => {
          if (from.address === host) heard(data);
        });
        sibling.on('error', () => {});
        await bound(sibling, 0, localAddress);
        await bound(socket, sibling.address().port, localAddress);
      } else if (localAddress !== undefined) {
        await bound(socket, 0, localAddress);
      }
      socket.on('error', (error: NodeJS.ErrnoException) => {
        // ECONNREFUSED is the ICMP answer; anything else (EHOSTUNREACH, a
        // network down) says nothing about the port, so it is not a verdict.
        if (error.code === 'ECONNREFUSED') events.refused();
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.connect(port, host, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      opened.close(); // an address this host lacks, a route gone: no socket left behind
      throw error;
    }
    return opened;
  }

  send(bytes: Uint8Array): void {
    if (this.closed) return;
    this.bytesSent += bytes.length;
    // A send error (a full socket buffer, the route gone) is a datagram lost: the rounds retry.
    this.socket.send(bytes, () => {});
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
    this.sibling?.close();
  }
}

/** Binds `socket` to `port` of `address` (any address when undefined); rejects when it cannot (an address not this host's). */
export function bound(socket: dgram.Socket, port: number, address: string | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind({ port, address }, () => {
      socket.off('error', reject);
      resolve();
    });
  });
}

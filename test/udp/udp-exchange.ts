// One UDP request and what came back, as the udp scan sees it from the
// root namespace: an answer, ECONNREFUSED (the host's ICMP port
// unreachable, reported on a connected socket) or nothing within a wait.
import { createSocket, type RemoteInfo } from 'node:dgram';

/** What one request got, and after how long. */
export type Outcome = { kind: 'answer'; reply: Buffer; from: RemoteInfo; ms: number } | { kind: 'refused'; ms: number } | { kind: 'silent'; ms: number };

/**
 * Sends `request` to `address`:`port` and waits up to `waitMs` for the
 * first answer or ECONNREFUSED. A connected socket (the default) takes
 * answers from that port only and learns of the ICMP error; an unconnected
 * one takes an answer from any port of the host (TFTP answers from a port
 * of its own), and `reply` answers that port before the socket closes.
 */
export async function exchange(
  address: string,
  port: number,
  request: Buffer,
  options: { connected?: boolean; waitMs?: number; reply?: (answer: Buffer) => Buffer | null } = {},
): Promise<Outcome> {
  const { connected = true, waitMs = 2000 } = options;
  const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
  const started = performance.now();
  const elapsed = (): number => performance.now() - started;
  try {
    return await new Promise<Outcome>((resolve, reject) => {
      const timer = setTimeout(() => resolve({ kind: 'silent', ms: elapsed() }), waitMs);
      const settle = (outcome: Outcome): void => {
        clearTimeout(timer);
        resolve(outcome);
      };
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') settle({ kind: 'refused', ms: elapsed() });
        else {
          clearTimeout(timer);
          reject(error);
        }
      });
      socket.on('message', (reply, from) => {
        if (from.address !== address) return;
        const ms = elapsed();
        const followUp = options.reply?.(reply) ?? null;
        if (followUp === null) settle({ kind: 'answer', reply, from, ms });
        else socket.send(followUp, from.port, from.address, () => settle({ kind: 'answer', reply, from, ms }));
      });
      if (connected) socket.connect(port, address, () => socket.send(request));
      else socket.send(request, port, address);
    });
  } finally {
    socket.close();
  }
}

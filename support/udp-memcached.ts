// A real memcached answering on UDP 11211 (the port the udp scan probes) of
// one address (loopback, or a netns host's) and nothing else (no TCP): the
// caller whose udp scan must name it, open and critical. Stopped by the test.
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';

import { killAndWait } from './child-kill.js';

const READY_TIMEOUT_MS = 5_000;

export interface UdpMemcached {
  close(): Promise<void>;
}

/**
 * Starts memcached on UDP 11211 of `address` (inside network namespace
 * `namespace` when given: a netns host's address, reached from here) and
 * resolves once it answers `version` there.
 */
export async function startUdpMemcached(address: string, namespace?: string): Promise<UdpMemcached> {
  const memcached = ['memcached', '-u', 'nobody', '-U', '11211', '-p', '0', '-m', '8', '-l', address];
  // `ip netns exec` execs its command: the child is memcached itself, so the kill reaches it.
  const [command, ...args] = namespace === undefined ? memcached : ['ip', 'netns', 'exec', namespace, ...memcached];
  const child: ChildProcess = spawn(command!, args, { stdio: 'ignore' });
  const close = () => killAndWait(child);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answersVersion(address))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`memcached on ${address} UDP 11211 did not answer within ${READY_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { close };
}

/** Whether a memcached answers `version` (in its UDP frame) on UDP 11211 of `address` within 200 ms. */
async function answersVersion(address: string): Promise<boolean> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<boolean>((resolve) => {
      socket.on('message', () => resolve(true));
      socket.on('error', () => resolve(false));
      setTimeout(() => resolve(false), 200);
      socket.connect(11211, address, () => socket.send(Buffer.from('\0\x01\0\0\0\x01\0\0version\r\n')));
    });
  } finally {
    socket.close();
  }
}

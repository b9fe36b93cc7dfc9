// A memcached of the test's own on a loopback TCP address: no UDP, a small
// cache, stopped by the test. Never a system service.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';

import { killAndWait } from './child-kill.js';

export interface MemcachedServer {
  close(): Promise<void>;
}

/** Starts memcached on `host`:`port` and resolves once it accepts connections. */
export async function startMemcachedServer(host: string, port: number): Promise<MemcachedServer> {
  const child = spawn('memcached', ['-l', host, '-p', String(port), '-U', '0', '-m', '8', '-u', 'nobody'], { stdio: 'ignore' });
  const close = () => killAndWait(child);
  try {
    await accepting(child, host, port);
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}

/** Resolves once `host`:`port` accepts a connection; rejects if the child exits or 5 s pass. */
async function accepting(child: ChildProcess, host: string, port: number): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`memcached exited (${child.exitCode}) before it accepted connections`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect({ host, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`memcached on ${host}:${port} not accepting after 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

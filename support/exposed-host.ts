// A host with two real exposures on a loopback address: a redis-server
// without a password on 6379 (high) and a TLS server on 443 whose
// certificate, from the test's own CA, expires in 3 days (medium), which
// answers an HTTP request after the handshake. For the tests that follow
// such findings from a scan to what a user sees (the page, the check).
import { createServer } from 'node:tls';

import { startRedisServer } from './redis-server.js';
import { createTestPki } from './test-pki.js';

export interface ExposedHost {
  close(): Promise<void>;
}

/** Starts both listeners on `address`. */
export async function startExposedHost(address: string): Promise<ExposedHost> {
  const redis = await startRedisServer({ tcp: { host: address, port: 6379 } });
  const pki = createTestPki();
  const { cert, key } = pki.issue({ cn: 'soon.test', sans: ['soon.test'], days: 3 });
  const tls = createServer({ cert, key }, (socket) => {
    socket.on('error', () => {});
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'));
  });
  tls.on('tlsClientError', () => {});
  const close = async () => {
    await new Promise((resolve) => tls.close(resolve));
    await redis.close();
    pki.close();
  };
  try {
    await new Promise<void>((resolve, reject) => tls.once('error', reject).listen(443, address, resolve));
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}

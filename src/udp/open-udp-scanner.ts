// The udp scanner as a serving process opens it: its source addresses
// (scanner.udpSourceAddresses) checked at start, so an address this host
// does not have stops the start with a clear error instead of failing each
// scan, and named in one log line.
import dgram from 'node:dgram';

import type { Logger } from 'pino';

import { ConfigError } from '../config/config-sources.js';
import { bound } from './udp-port-socket.js';
import { UdpScanner } from './udp-scanner.js';

export async function openUdpScanner(sourceAddresses: readonly string[], logger: Logger): Promise<UdpScanner> {
  for (const address of sourceAddresses) await checkBindable(address);
  if (sourceAddresses.length > 0) {
    logger.info({ event: 'udp_sources', addresses: sourceAddresses }, `udp scans send from ${sourceAddresses.join(', ')}`);
  }
  return new UdpScanner(undefined, { sourceAddresses });
}

async function checkBindable(address: string): Promise<void> {
  const socket = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
  try {
    await bound(socket, 0, address);
  } catch (error) {
    throw new ConfigError(
      `scanner.udpSourceAddresses: cannot send from ${address} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): it must be an address of this host`,
    );
  } finally {
    socket.close();
  }
}

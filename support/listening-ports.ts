// The truth for a scan of a loopback address: which TCP ports have a
// listener that accepts on it, read from /proc/net/tcp and tcp6.
import { readFileSync } from 'node:fs';

function hexToIpv4(hex: string): string {
  const n = Number.parseInt(hex, 16);
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join('.');
}

/** Ports listening on `address` (IPv4) or on every address. */
export function listeningPorts(address: string): number[] {
  const ports = new Set<number>();
  const LISTEN = '0A';
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (local === undefined || state !== LISTEN) continue;
      const [hexAddress, hexPort] = local.split(':') as [string, string];
      const any = /^0+$/.test(hexAddress);
      const mine = hexAddress.length === 8 && hexToIpv4(hexAddress) === address;
      if (any || mine) ports.add(Number.parseInt(hexPort, 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

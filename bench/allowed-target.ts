// The only addresses the benchmark's own scanning processes may touch:
// loopback and the netns fixture ranges (see test/fixtures/netns-host.ts).
import { BlockList, isIP } from 'node:net';

const ALLOWED = new BlockList();
ALLOWED.addSubnet('198.18.0.0', 15, 'ipv4');
ALLOWED.addSubnet('127.0.0.0', 8, 'ipv4');
ALLOWED.addSubnet('fd5e:1f5c::', 32, 'ipv6');
ALLOWED.addAddress('::1', 'ipv6');

/** Throws unless `ip` is loopback or a fixture address. */
export function assertAllowedTarget(ip: string): void {
  const family = isIP(ip);
  if (family === 0 || !ALLOWED.check(ip, family === 6 ? 'ipv6' : 'ipv4')) {
    throw new Error(`refusing to scan ${ip}: only loopback and the netns fixture ranges are allowed`);
  }
}

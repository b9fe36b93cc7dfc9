// Reverse DNS (PTR) lookups for scan targets that never throw and never
// outlast their timeout.
import dns from 'node:dns';

/** Options of {@link createPtrLookup}. */
export interface PtrLookupOptions {
  /** DNS servers as `ip` or `ip:port` entries (see `Resolver#setServers`); default: the system's. */
  servers?: string[];
  /** Upper bound of one lookup in milliseconds; default 2000. */
  timeoutMs?: number;
}

/** Resolves an IPv4 or IPv6 address to its first PTR name, or null when there is none. */
export type PtrLookup = (ip: string) => Promise<string | null>;

/**
 * Creates a PTR lookup. Each lookup resolves to the first name (without a
 * trailing dot) or to null on any failure: no record, a resolver error, a
 * refused or silent server, or `timeoutMs` elapsing.
 *
 * Throws at creation on an invalid `timeoutMs` or a malformed `servers` entry.
 */
export function createPtrLookup(options: PtrLookupOptions = {}): PtrLookup {
  const { servers, timeoutMs = 2000 } = options;
  const newResolver = (): dns.promises.Resolver => {
    const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries: 1 });
    if (servers) resolver.setServers(servers);
    return resolver;
  };
  newResolver(); // surfaces bad options here rather than as null on every lookup

  return async (ip) => {
    // One resolver per lookup: cancel() aborts every query of its resolver.
    const resolver = newResolver();
    // c-ares may retry or back off past its own timeout; this bounds the total.
    const timer = setTimeout(() => resolver.cancel(), timeoutMs);
    try {
      const [name] = await resolver.reverse(ip);
      return name ? name.replace(/\.$/, '') : null;
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  };
}

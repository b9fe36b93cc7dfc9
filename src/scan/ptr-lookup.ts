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
  // One resolver for every lookup (creating one costs more than a lookup).
  // It is never cancelled, as cancel() would abort every query in flight:
  // a lookup that outlives timeoutMs is answered null and left to finish.
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries: 1 });
  if (servers) resolver.setServers(servers);

  return async (ip) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    const lookup = resolver.reverse(ip).then(
      ([name]) => (name ? name.replace(/\.$/, '') : null),
      () => null,
    );
    try {
      return await Promise.race([lookup, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
}

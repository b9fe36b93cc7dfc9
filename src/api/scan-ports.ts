// Which ports each scan type covers, without zod: the check client
// (src/client/) needs these facts at run time and must load nothing but
// node: built-ins. scan-type.ts re-exports them for everything else.

/** The fast scan's 32 ports (port 25 included), in the order probed. */
export const FAST_PORTS: readonly number[] = Object.freeze([
  21, 22, 23, 25, 53, 80, 110, 111, 135, 139, 143, 443, 445, 465, 587, 993, 995, 1433, 1521, 2049, 2375, 3306, 3389, 5432, 5900, 6379, 8000, 8080, 8443, 9200,
  11211, 27017,
]);

/** Every TCP port, 1 to 65535. */
export const DEEP_PORTS: readonly number[] = Object.freeze(Array.from({ length: 65535 }, (_, i) => i + 1));

/**
 * The udp scan's 20 UDP ports, one per service it probes (src/udp/udp-probes.ts
 * has the probe of each): the reflectors and leaks of Shadowserver's reports.
 */
export const UDP_PORTS: readonly number[] = Object.freeze([
  17, 19, 53, 69, 111, 123, 137, 161, 389, 500, 623, 1194, 1434, 1900, 3702, 5060, 5353, 5683, 10001, 11211,
]);

// An ASN lookup on a MaxMind-format database (GeoLite2-ASN, ip-location-db's
// asn-mmdb, …), read whole into memory so a lookup never touches the disk.
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';

import { type AsnResponse, Reader } from 'mmdb-lib';

import type { AsnLookup } from './asn-lookup.js';

/** Loads the .mmdb file at `path`; its records' `autonomous_system_number` is the AS. */
export async function openMmdbLookup(path: string): Promise<AsnLookup> {
  const reader = new Reader<AsnResponse>(await readFile(path));
  // mmdb-lib walks an IPv6 address down an IPv4-only tree and answers from its first 32 bits.
  const ipv6Known = reader.metadata.ipVersion === 6;
  return {
    source: path,
    asnOf(ip: string): number | null {
      const family = isIP(ip);
      if (family === 0 || (family === 6 && !ipv6Known)) return null;
      const asn = reader.get(ip)?.autonomous_system_number;
      // AS 0 means "no AS" (RFC 7607).
      return typeof asn === 'number' && asn > 0 ? asn : null;
    },
  };
}

// Multi-region results as a cluster answers them (checked against the wire
// schema), for the check client's unit tests: two regions that see the same
// ports, and three that do not agree and one that did not finish.

import type { Port } from '../../src/api/port.js';
import { type ScanResultComplete, type ScanResultFinal, ScanResultFinal as ScanResultFinalSchema } from '../../src/api/scan-result.js';

const port = (number: number, service: string | null, banner: string | null = null): Port => ({ port: number, state: 'open', service, banner });
const filtered = (number: number, service: string | null): Port => ({ port: number, state: 'filtered', service, banner: null });

const SSH = port(22, 'ssh', 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3');
const HTTPS = port(443, 'https');
const ALT = port(8080, 'http-alt');
const COMPLETED_AT = 1_764_160_000;

const base = {
  ip: '198.51.100.7',
  scan_type: 'fast',
  service_banners: { '22': SSH.banner! },
  ptr_record: 'web-1.example.org',
  completed_at: COMPLETED_AT,
  expires_at: COMPLETED_AT + 86_400,
} as const;

/** NL and FR both reach 22 and 443, nothing else. */
export const SAME_EVERYWHERE: ScanResultComplete = {
  ...base,
  status: 'complete',
  ports_open: [SSH, HTTPS],
  ports_filtered: [],
  duration_ms: 2410,
  regions: ['FR', 'NL'],
  vantages: [
    { region: 'FR', status: 'complete', duration_ms: 2410, chunks_complete: 4, total_chunks: 4, ports_open: [SSH, HTTPS], ports_filtered: [] },
    { region: 'NL', status: 'complete', duration_ms: 1980, chunks_complete: 4, total_chunks: 4, ports_open: [SSH, HTTPS], ports_filtered: [] },
  ],
  differences: [],
};

/**
 * NL and UK reach 8080, FR's probes get no answer; 3306 is open from UK
 * only, refused from NL and FR; SE scanned nothing (its node died).
 */
export const DIFFERING: ScanResultFinal = {
  ...base,
  status: 'complete',
  ports_open: [SSH, HTTPS, port(3306, 'mysql'), ALT],
  ports_filtered: [],
  duration_ms: 3120,
  regions: ['FR', 'NL', 'SE', 'UK'],
  vantages: [
    {
      region: 'FR',
      status: 'complete',
      duration_ms: 3120,
      chunks_complete: 4,
      total_chunks: 4,
      ports_open: [SSH, HTTPS],
      ports_filtered: [filtered(8080, 'http-alt')],
    },
    { region: 'NL', status: 'complete', duration_ms: 2090, chunks_complete: 4, total_chunks: 4, ports_open: [SSH, HTTPS, ALT], ports_filtered: [] },
    { region: 'SE', status: 'failed', fail_reason: 'interrupted', duration_ms: 0, chunks_complete: 0, total_chunks: 4, ports_open: [], ports_filtered: [] },
    {
      region: 'UK',
      status: 'complete',
      duration_ms: 2600,
      chunks_complete: 4,
      total_chunks: 4,
      ports_open: [SSH, HTTPS, port(3306, 'mysql'), ALT],
      ports_filtered: [],
    },
  ],
  differences: [
    { port: 3306, open: ['UK'], filtered: [], closed: ['FR', 'NL'], unknown: ['SE'] },
    { port: 8080, open: ['NL', 'UK'], filtered: ['FR'], closed: [], unknown: ['SE'] },
  ],
};

/** A scan from one place, as a server before interface 1.2 answers a request with `regions`. */
export const FROM_ONE_PLACE: ScanResultComplete = {
  ...base,
  status: 'complete',
  ports_open: [SSH, HTTPS],
  ports_filtered: [],
  duration_ms: 1900,
};

for (const body of [SAME_EVERYWHERE, DIFFERING, FROM_ONE_PLACE]) ScanResultFinalSchema.parse(body);

// The compact fingerprint kept of an address's last complete scan, and the
// changes a new scan shows against it. A fingerprint holds no banner text:
// only a short hash of what identifies the service in it, the certificate's
// SHA-256 and the severity, so what is kept for weeks says little more than
// which ports were open.
import { createHash } from 'node:crypto';

import type { Port } from '../api/port.js';
import type { ChangeKind, PortChange, ScanChanges } from '../api/scan-changes.js';
import type { SeverityLevel } from '../api/severity-levels.js';

/** One open port as a fingerprint keeps it. */
export interface PortPrint {
  port: number;
  /** Hash of the banner's identifying part; null when the port sent none. */
  banner: string | null;
  /** SHA-256 of the TLS certificate; null when none was seen. */
  cert: string | null;
  severity: SeverityLevel | null;
}

/** What is kept of a complete scan to tell later scans what changed. */
export interface Fingerprint {
  /** When the scan ended, Unix ms. */
  completedAt: number;
  ports: PortPrint[];
}

// Parts of banners that change from one connection to the next without the
// service changing: an HTTP response's headers other than its status line
// and Server, and clock readings in greetings ("... 10:42:07 ...").
const CLOCK = /\b\d{1,2}:\d{2}(:\d{2})?(\.\d+)?\b/g;
const HTTP_KEPT = /^(HTTP\/|server:)/i;

/** The hash of what identifies the service in `banner`; null for none. */
export function bannerKey(banner: string | null): string | null {
  if (banner === null) return null;
  const lines = banner.split('\n');
  const kept = banner.startsWith('HTTP/') ? lines.filter((line) => HTTP_KEPT.test(line)) : lines.slice(0, 1);
  const identity = kept.join('\n').replace(CLOCK, '').trim();
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

/** The fingerprint of a scan that ended at `completedAt` (Unix ms) with `open` ports. */
export function fingerprintOf(completedAt: number, open: readonly Port[]): Fingerprint {
  return {
    completedAt,
    ports: open.map((port) => ({
      port: port.port,
      banner: bannerKey(port.banner),
      cert: port.facts?.tls?.sha256 ?? null,
      severity: port.risk?.severity ?? null,
    })),
  };
}

/**
 * What `after` shows against `before`: ports opened, closed and changed.
 * `complete`: `after` covered the whole range; a partial scan names no
 * closed port, since a port it did not reach is not known to have closed.
 */
export function changesSince(before: Fingerprint, after: Fingerprint, complete: boolean): ScanChanges {
  const earlier = new Map(before.ports.map((print) => [print.port, print]));
  const now = new Map(after.ports.map((print) => [print.port, print]));
  const changed: PortChange[] = [];
  for (const print of after.ports) {
    const then = earlier.get(print.port);
    if (then === undefined) continue;
    const what: ChangeKind[] = [];
    if (then.banner !== print.banner) what.push('banner');
    if (then.cert !== print.cert) what.push('certificate');
    if (then.severity !== print.severity) what.push('severity');
    if (what.length > 0) changed.push({ port: print.port, what, severity_before: then.severity, severity_after: print.severity });
  }
  return {
    since: Math.floor(before.completedAt / 1000),
    opened: after.ports.filter((print) => !earlier.has(print.port)).map((print) => print.port),
    closed: complete ? before.ports.filter((print) => !now.has(print.port)).map((print) => print.port) : [],
    changed,
  };
}

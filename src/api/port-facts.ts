// What the probes after a sweep learn about an open port (TLS, HTTP, SSH,
// a data store or control API that answers without credentials) and the
// severity the table in src/exposure/ gives it. All optional, added in
// interface 1.1: a client of 1.0.0 never sees a field it reads change.
import * as z from 'zod';

import { SEVERITIES } from './severity-levels.js';
import { UDP_SERVICES } from './udp-services.js';

/** How bad an exposure is, from `critical` to `info`. */
export const Severity = z.enum(SEVERITIES).meta({ description: 'How bad the exposure is: `critical`, `high`, `medium`, `low` or `info`.' });
export type Severity = z.output<typeof Severity>;

const text = (description: string) => z.string().meta({ description });
const maybeText = (description: string) => z.string().nullable().meta({ description });

/** The certificate and session of a port that completed a TLS handshake. */
export const TlsFacts = z
  .strictObject({
    version: text('Protocol version agreed, e.g. `TLSv1.3`.'),
    cipher: text('Cipher suite agreed (OpenSSL name).'),
    sni: maybeText('Server name sent in the handshake: the PTR name of the address, or null when it has none.'),
    subject_cn: maybeText("The certificate's subject common name, or null."),
    sans: z.array(z.string()).meta({ description: "The certificate's DNS and IP subject alternative names." }),
    issuer: maybeText("The issuer's common name (or organisation), or null."),
    not_after: z.int().meta({ description: 'When the certificate expires, Unix seconds.' }),
    days_left: z.int().meta({ description: 'Whole days until `not_after`; negative once expired.' }),
    self_signed: z.boolean().meta({ description: 'Issued by its own subject.' }),
    trusted: z.boolean().meta({ description: "The chain the server sent verifies against the scanner's CA store." }),
    name_matches: z
      .boolean()
      .nullable()
      .meta({ description: 'The certificate is valid for the PTR name of the address; null when the address has no PTR name.' }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'SHA-256 fingerprint of the leaf certificate (DER), lowercase hex.' }),
  })
  .meta({ description: 'The TLS session and certificate of the port.' });
export type TlsFacts = z.output<typeof TlsFacts>;

/** How the port answered `GET /`. */
export const HttpFacts = z
  .strictObject({
    tls: z.boolean().meta({ description: 'Answered over TLS.' }),
    status: z.int().min(100).max(999).meta({ description: 'HTTP status code.' }),
    server: maybeText('The `Server` header (printable, truncated), or null.'),
    title: maybeText('The page title (printable, truncated), or null.'),
    location: maybeText('The `Location` header of a redirect (printable, truncated), or null.'),
    hsts: z.boolean().meta({ description: 'A `Strict-Transport-Security` header was sent.' }),
  })
  .meta({ description: 'How the port answered an HTTP `GET /`.' });
export type HttpFacts = z.output<typeof HttpFacts>;

/** The SSH server's identification string, split. */
export const SshFacts = z
  .strictObject({
    protocol: text('SSH protocol version, e.g. `2.0`.'),
    software: text('Server software and version, e.g. `OpenSSH_9.2p1`.'),
    comment: maybeText('The comment after the version, e.g. `Debian-2+deb12u3`, or null.'),
  })
  .meta({ description: "The SSH server's identification string." });
export type SshFacts = z.output<typeof SshFacts>;

/** Data stores and control APIs recognised by a harmless read-only request. */
export const AccessService = z.enum(['redis', 'mongodb', 'elasticsearch', 'memcached', 'docker']);
export type AccessService = z.output<typeof AccessService>;

/** Whether a data store or control API serves reads without credentials. */
export const AccessFacts = z
  .strictObject({
    service: AccessService.meta({ description: 'The data store or control API recognised.' }),
    auth_required: z.boolean().meta({ description: 'It refused the read-only request without credentials.' }),
    version: maybeText('Its version, when it said, or null.'),
    evidence: text('What it answered, in words, e.g. `PING answered PONG`.'),
  })
  .meta({ description: 'A data store or control API, and whether it answers without credentials (never authenticated to, never written).' });
export type AccessFacts = z.output<typeof AccessFacts>;

/** A UDP service's answers to the udp scan's probe (since 1.3). */
export const UdpFacts = z
  .strictObject({
    service: z.enum(UDP_SERVICES).meta({ description: 'The service the probe is for, by its port: `dns`, `ntp`, `snmp`, `memcached`, …' }),
    bytes_sent: z.int().min(0).meta({ description: 'Bytes of every datagram sent to the port, retries included.' }),
    bytes_received: z.int().min(0).meta({ description: 'Bytes of every datagram it sent back.' }),
    amplification: z
      .number()
      .min(0)
      .meta({ description: 'bytes_received ÷ bytes_sent: how many times its answers outweigh the requests (a reflector amplifies).' }),
    evidence: z.array(z.string()).meta({ description: 'What each recognised answer showed, in words, one entry per request answered.' }),
    details: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .meta({ description: 'Named facts of the answers, e.g. `recursive`, `version`, `mode7`, `sys_descr` (keys per service, see the README).' }),
  })
  .meta({ description: "What a UDP service answered the udp scan's harmless request(s) of its protocol." });
export type UdpFacts = z.output<typeof UdpFacts>;

/** Everything learned about one open port; each part only when found. */
export const PortFacts = z
  .strictObject({
    tls: TlsFacts.optional(),
    http: HttpFacts.optional(),
    ssh: SshFacts.optional(),
    access: AccessFacts.optional(),
    udp: UdpFacts.optional(),
  })
  .meta({ description: 'What the probes after the sweep learned about the open port.' });
export type PortFacts = z.output<typeof PortFacts>;

/** The severity of an open port, why, and what to do. */
export const PortRisk = z
  .strictObject({
    severity: Severity,
    why: text('One sentence: why it has this severity.'),
    fix: text('One sentence: what to do about it.'),
  })
  .meta({ description: 'The severity of the open port, from the severity table, with why and what to do.' });
export type PortRisk = z.output<typeof PortRisk>;

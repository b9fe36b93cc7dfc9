// A TLS handshake with a port, without trusting or refusing what it shows:
// the session (version, cipher) and the leaf certificate's facts (names,
// expiry, self-signed, trusted by our CA store, valid for the address's PTR
// name, fingerprint). The connection stays open so HTTP can follow on it.
import { createHash, X509Certificate } from 'node:crypto';
import { type ConnectionOptions, checkServerIdentity, createSecureContext, type PeerCertificate, type SecureContext, type TLSSocket } from 'node:tls';

import type { TlsFacts } from '../api/port-facts.js';
import { printableText } from './printable-text.js';
import { ProbeConnection, type ProbeTarget } from './probe-connection.js';
import { ptrHostname } from './ptr-hostname.js';

/** Most subject alternative names kept. */
export const MAX_SANS = 32;

const DAY_MS = 86_400_000;

const contexts = new WeakMap<readonly string[], SecureContext>();

/**
 * A client context that trusts `trustRoots` (kept per array: parsing a CA
 * store costs milliseconds) and agrees to old protocols and ciphers, so a
 * legacy server still shows its certificate.
 */
export function clientContext(trustRoots: readonly string[]): SecureContext {
  let context = contexts.get(trustRoots);
  if (context === undefined) {
    context = createSecureContext({ ca: [...trustRoots], minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
    contexts.set(trustRoots, context);
  }
  return context;
}

/**
 * How a probe starts TLS: nothing refused, SNI when the address has a name,
 * HTTP/1.1 offered by ALPN. Node's own name check is off so `authorized`
 * says only whether the chain verifies; the name is checked on its own.
 */
export function tlsOptions(context: SecureContext, ptr: string | null): ConnectionOptions {
  const servername = ptrHostname(ptr);
  return {
    secureContext: context,
    rejectUnauthorized: false,
    checkServerIdentity: () => undefined,
    ALPNProtocols: ['http/1.1'],
    ...(servername === null ? {} : { servername }),
  };
}

/** A completed handshake: the open connection and what it showed. */
export interface TlsSession {
  connection: ProbeConnection;
  facts: TlsFacts;
}

/** Connects and shakes hands; null when the port does not complete a TLS handshake (or shows no certificate). */
export async function tlsHandshake(target: ProbeTarget, context: SecureContext, ptr: string | null, now: () => number): Promise<TlsSession | null> {
  const connection = await ProbeConnection.open(target);
  if (connection === null) return null;
  const socket = await connection.startTls(tlsOptions(context, ptr));
  const facts = socket === null ? null : sessionFacts(socket, ptr, now);
  if (facts === null) {
    connection.close();
    return null;
  }
  return { connection, facts };
}

function sessionFacts(socket: TLSSocket, ptr: string | null, now: () => number): TlsFacts | null {
  try {
    const cert = socket.getPeerCertificate();
    if (cert?.raw === undefined) return null;
    const notAfter = Math.floor(Date.parse(cert.valid_to) / 1000);
    if (!Number.isFinite(notAfter)) return null;
    const name = ptrHostname(ptr);
    return {
      version: printableText(socket.getProtocol() ?? 'unknown'),
      cipher: printableText(socket.getCipher()?.name ?? 'unknown'),
      sni: name,
      subject_cn: firstName(cert.subject?.CN),
      sans: subjectAltNames(cert.subjectaltname),
      issuer: firstName(cert.issuer?.CN) ?? firstName(cert.issuer?.O),
      not_after: notAfter,
      days_left: Math.floor((notAfter * 1000 - now()) / DAY_MS),
      self_signed: selfSigned(cert),
      trusted: socket.authorized,
      name_matches: name === null ? null : checkServerIdentity(name, cert) === undefined,
      sha256: createHash('sha256').update(cert.raw).digest('hex'),
    };
  } catch {
    return null; // a certificate Node cannot read: no facts
  }
}

/** A name field of a certificate (a repeated one is an array), first value, printable. */
function firstName(value: string | string[] | undefined): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : printableText(first);
}

/** The DNS and IP names of Node's `subjectaltname` text (`DNS:a, IP Address:1.2.3.4`; values with special characters JSON-quoted). */
export function subjectAltNames(text: string | undefined): string[] {
  const names: string[] = [];
  for (const match of (text ?? '').matchAll(/(?:^|, )(DNS|IP Address):("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    if (names.length >= MAX_SANS) break;
    let value = match[2]!;
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        continue;
      }
    }
    names.push(printableText(value));
  }
  return names;
}

/**
 * Issued by its own subject and signed by its own key. Not checkIssued: it
 * also wants the key usage of a CA, which a self-signed server certificate
 * rarely has.
 */
function selfSigned(cert: PeerCertificate): boolean {
  try {
    const x509 = new X509Certificate(cert.raw);
    return x509.issuer === x509.subject && x509.verify(x509.publicKey);
  } catch {
    return false;
  }
}

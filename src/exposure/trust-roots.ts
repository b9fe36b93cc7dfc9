// The CA certificates a port's chain must verify against to be `trusted`:
// what the host's TLS clients trust (the system bundle, where Debian, RHEL,
// SUSE and Alpine keep it), else Node's own bundled roots, plus the file an
// operator names in NODE_EXTRA_CA_CERTS, as Node itself would. Read once.
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Where systems keep their CA bundle, the first that exists wins. */
const SYSTEM_CA_BUNDLES: readonly string[] = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

let roots: readonly string[] | null = null;

/** The PEM CA certificates of this host (read on first use, then kept). */
export function systemTrustRoots(): readonly string[] {
  roots ??= Object.freeze([...bundleCertificates(), ...extraCertificates()]);
  return roots;
}

function bundleCertificates(): string[] {
  for (const path of SYSTEM_CA_BUNDLES) {
    const text = readOrNull(path);
    if (text !== null) {
      const certificates = splitPem(text);
      if (certificates.length > 0) return certificates;
    }
  }
  return [...rootCertificates];
}

function extraCertificates(): string[] {
  const path = process.env.NODE_EXTRA_CA_CERTS;
  if (path === undefined || path === '') return [];
  return splitPem(readOrNull(path) ?? '');
}

/** The certificates in a PEM bundle, each its own PEM string. */
function splitPem(text: string): string[] {
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

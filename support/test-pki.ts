// A certificate authority of the test's own, made with the openssl CLI in a
// temp dir, so TLS tests can serve certificates of every kind the probes
// must tell apart: issued by a CA the test trusts, self-signed, expired,
// about to expire, or for another name. Leaves are signed with `openssl ca`
// and explicit start and end dates, because OpenSSL 3.0's `x509` cannot
// backdate a certificate.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What to put in a leaf certificate. */
export interface IssueOptions {
  /** The subject common name. */
  cn: string;
  /** Subject alternative names: `DNS:host.test`, `IP:127.0.0.1`, or a bare name (taken as DNS, or IP when it is an IPv4 address). */
  sans?: readonly string[];
  /** Days until it expires (from now); default 90. Ignored when `expired`. */
  days?: number;
  /** Expired yesterday (valid for the 30 days before). */
  expired?: boolean;
  /** Signed by its own key rather than by the test CA. */
  selfSigned?: boolean;
}

/** A leaf certificate and its private key, PEM. */
export interface Issued {
  cert: string;
  key: string;
}

/** A test CA in a temp dir. */
export interface TestPki {
  /** The CA's certificate, PEM: pass it as the trust roots for "trusted". */
  caPem: string;
  /** Makes a leaf certificate (synchronous: openssl runs as a child). */
  issue(options: IssueOptions): Issued;
  /** Removes the temp dir. */
  close(): void;
}

const DAY_MS = 86_400_000;

/** Creates a CA (EC P-256, valid ten years) in a new temp dir. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-pki-'));
  try {
    mkdirSync(join(dir, 'issued'));
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'ca.cnf'), caConfig(dir));
    openssl(dir, [
      'req',
      '-x509',
      ...EC_KEY,
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '3650',
      '-subj',
      '/O=selfscan tests/CN=selfscan test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let serial = 0;
  return {
    caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    issue: (options) => issue(dir, ++serial, options),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

function issue(dir: string, serial: number, options: IssueOptions): Issued {
  const name = `leaf-${serial}`;
  const now = Date.now();
  const start = options.expired ? now - 30 * DAY_MS : now - DAY_MS;
  const end = options.expired ? now - DAY_MS : now + (options.days ?? 90) * DAY_MS;
  writeFileSync(join(dir, 'serial'), `${(0x1000 + serial).toString(16)}\n`);
  writeFileSync(join(dir, `${name}.ext`), leafExtensions(options));
  openssl(dir, ['req', '-new', ...EC_KEY, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${options.cn}`]);
  const signer = options.selfSigned ? ['-selfsign', '-keyfile', `${name}.key`] : [];
  openssl(dir, [
    'ca',
    '-batch',
    '-notext',
    '-config',
    'ca.cnf',
    ...signer,
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.pem`,
    '-startdate',
    generalizedTime(start),
    '-enddate',
    generalizedTime(end),
    '-extfile',
    `${name}.ext`,
    '-extensions',
    'leaf',
  ]);
  return { cert: readFileSync(join(dir, `${name}.pem`), 'utf8'), key: readFileSync(join(dir, `${name}.key`), 'utf8') };
}

function caConfig(dir: string): string {
  return [
    '[ca]',
    'default_ca = test_ca',
    '[test_ca]',
    `dir = ${dir}`,
    'database = $dir/index.txt',
    'new_certs_dir = $dir/issued',
    'serial = $dir/serial',
    'certificate = $dir/ca.pem',
    'private_key = $dir/ca.key',
    'default_md = sha256',
    'policy = any_name',
    'unique_subject = no',
    'copy_extensions = none',
    '[any_name]',
    'commonName = supplied',
    '',
  ].join('\n');
}

function leafExtensions(options: IssueOptions): string {
  const sans = (options.sans ?? []).map((san) => (san.includes(':') ? san : /^\d+\.\d+\.\d+\.\d+$/.test(san) ? `IP:${san}` : `DNS:${san}`));
  // As a server certificate is made, self-signed ones too: no keyCertSign.
  const lines = [
    '[leaf]',
    'basicConstraints = CA:FALSE',
    'keyUsage = critical, digitalSignature',
    'extendedKeyUsage = serverAuth',
    'subjectKeyIdentifier = hash',
  ];
  if (sans.length > 0) lines.push(`subjectAltName = ${sans.join(',')}`);
  return `${lines.join('\n')}\n`;
}

/** `YYYYMMDDHHMMSSZ`, as `openssl ca -startdate/-enddate` take it. */
function generalizedTime(ms: number): string {
  return `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

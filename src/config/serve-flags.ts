// The command-line flags of `selfscan serve`, without zod: `selfscan --help`
// lists them loading nothing of the server (src/commands/help.ts), and the
// config schema (config.ts) takes each flag's name and description from
// here. test/unit/config.test.ts checks this table against the schema.

/** A setting that a flag of `selfscan serve` sets. */
export interface ServeFlag {
  flag: string;
  /** Where the setting sits in the config. */
  path: readonly string[];
  description: string;
  /** Takes no value (a boolean setting). */
  isSwitch: boolean;
}

export const SERVE_FLAGS = {
  host: { flag: '--host', path: ['host'], description: 'address to listen on', isSwitch: false },
  port: { flag: '--port', path: ['port'], description: 'port (0: any free one)', isSwitch: false },
  dataDir: { flag: '--data-dir', path: ['dataDir'], description: 'where results are stored (lmdb)', isSwitch: false },
  allowPrivateTargets: {
    flag: '--allow-private-targets',
    path: ['allowPrivateTargets'],
    description: 'scan loopback and private callers: local trials and tests only',
    isSwitch: true,
  },
  allowPrivateCallbacks: {
    flag: '--allow-private-callbacks',
    path: ['allowPrivateCallbacks'],
    description: 'deliver webhooks to loopback and private addresses: local trials and tests only',
    isSwitch: true,
  },
  redisUrl: {
    flag: '--redis',
    path: ['redisUrl'],
    description:
      'cluster mode: the Redis primary (`redis://`, `rediss://` or `unix:///path`) or the Sentinels that name it (`redis+sentinel://HOST:PORT[,HOST:PORT…]/MASTER_NAME`, `rediss+sentinel://` for TLS); unset: one process, no Redis',
    isSwitch: false,
  },
  role: {
    flag: '--role',
    path: ['role'],
    description: 'with --redis: `api` (HTTP, never loads the scanner), `scanner` (scans; serves only /healthz) or `all`',
    isSwitch: false,
  },
  region: {
    flag: '--region',
    path: ['region'],
    description: 'with --redis: a scanner node scans from this region; an API node sends scans to the first of these regions with a live scanner node',
    isSwitch: false,
  },
  ipv4Origin: {
    flag: '--ipv4-origin',
    path: ['page', 'ipv4Origin'],
    description: "the page's IPv4 pane scans through this origin: a hostname with an A record only (`https://ipv4.scan.example`)",
    isSwitch: false,
  },
  ipv6Origin: {
    flag: '--ipv6-origin',
    path: ['page', 'ipv6Origin'],
    description: "the page's IPv6 pane scans through this origin: a hostname with an AAAA record only",
    isSwitch: false,
  },
} as const satisfies Record<string, ServeFlag>;

const upperSnake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** The environment variable of the setting at `path`, e.g. SELFSCAN_LIMITS_EDGE_MAX. */
export function envName(path: readonly string[]): string {
  return `SELFSCAN_${path.map(upperSnake).join('_')}`;
}

/** One line of help: the flag, its value's name, its meaning and its variable. */
export function flagHelp({ flag, path, description, isSwitch }: ServeFlag): string {
  const name = `  ${flag}${isSwitch ? '' : ` ${upperSnake(path.at(-1)!)}`}`;
  return `${name.padEnd(29)}${description} (${envName(path)})`;
}

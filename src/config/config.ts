// The service's settings: one zod schema that holds each setting's type,
// default and meaning. Environment variables, command-line flags and the
// README's table are derived from it (config-sources.ts, config-table.ts beside it).
import * as z from 'zod';

import type { ScanType } from '../api/scan-type.js';
import { ENGINE_CHOICES } from '../native/engine-choices.js';
import { POLLER_CHOICES } from '../native/poller-choices.js';
import { parseCidr } from '../net/cidr.js';
import { normaliseIp } from '../net/ip-address.js';
import { HTTP_SERVER_CHOICES } from './http-server-choices.js';
import { parseRedisUrl } from './redis-url.js';
import { SERVE_FLAGS, type ServeFlag } from './serve-flags.js';

/** What the schema says of a setting beyond its type and default. */
export interface SettingMeta {
  description: string;
  /** The command-line flag that sets it, if any. */
  flag?: string;
  /** The default as the README shows it, when the value alone says too little. */
  defaultText?: string;
}

function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  return schema.meta(meta as unknown as Record<string, unknown>);
}

/** A flag's setting meta, from the one table of serve's flags. */
const flagMeta = ({ flag, description }: ServeFlag): SettingMeta => ({ flag, description });

const seconds = z.number().positive();
const rateRule = (max: number, windowSeconds: number, what: string) =>
  z
    .strictObject({
      max: setting(z.number().int().min(0).default(max), { description: `${what} allowed per window; 0 turns the limit off` }),
      windowSeconds: setting(seconds.default(windowSeconds), { description: `the window of that limit, in seconds` }),
    })
    .prefault({});
const scanLimit = z.number().int().min(1);
/** An address or CIDR, by the one set of IP rules (src/net). */
const cidr = z.string().superRefine((text, context) => {
  try {
    parseCidr(text);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** One address, by the one set of IP rules (src/net); kept as written canonically. */
const ipAddress = z.string().transform((text, context) => {
  try {
    return normaliseIp(text.trim());
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** `--redis`: a primary, a unix socket or Sentinels, by the one reader of it (redis-url.ts). */
const redisUrl = z
  .string()
  .min(1)
  .superRefine((text, context) => {
    try {
      parseRedisUrl(text);
    } catch (error) {
      context.addIssue({ code: 'custom', message: (error as Error).message });
    }
  });

/** Who may read /metrics unless told: this host and private networks, never the internet. */
const METRICS_DEFAULT_ALLOW = ['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];

/** A web origin: scheme, host and optional port, nothing after them. */
const origin = z
  .url({ protocol: /^https?$/ })
  .refine((text) => !URL.canParse(text) || new URL(text).origin === text.replace(/\/$/, ''), 'an origin: scheme://host[:port], no path');

/** A pane's origin: its host goes in the page's CSP, whose grammar has no IPv6 literal. */
const paneOrigin = origin.refine(
  (text) => !URL.canParse(text) || !new URL(text).hostname.startsWith('['),
  'a host name, not an IPv6 literal (a Content-Security-Policy cannot name one)',
);

export const configSchema = z.strictObject({
  host: setting(z.string().min(1).default('0.0.0.0'), flagMeta(SERVE_FLAGS.host)),
  port: setting(z.number().int().min(0).max(65535).default(8080), flagMeta(SERVE_FLAGS.port)),
  dataDir: setting(z.string().min(1).default('./data'), flagMeta(SERVE_FLAGS.dataDir)),
  allowPrivateTargets: setting(z.boolean().default(false), flagMeta(SERVE_FLAGS.allowPrivateTargets)),
  allowPrivateCallbacks: setting(z.boolean().default(false), flagMeta(SERVE_FLAGS.allowPrivateCallbacks)),
  logLevel: setting(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), { description: 'log level' }),
  http: z
    .strictObject({
      server: setting(z.enum(HTTP_SERVER_CHOICES).default('auto'), {
        description:
          "the HTTP server: `uws` (uWebSockets.js, where its binary loads: Node 20 on linux-x64 today; elsewhere it stops the start), `node` (Node's own http, on every Node version) or `auto`: uws where it loads, else node",
      }),
      headersTimeoutSeconds: setting(seconds.default(20), {
        description: 'Node front: longest wait for a whole request head; then 408 and the connection closed',
      }),
      requestTimeoutSeconds: setting(seconds.default(60), {
        description: 'Node front: longest wait for a whole request, head and body; then 408 and the connection closed',
      }),
    })
    .prefault({}),
  sseKeepAliveSeconds: setting(seconds.default(15), { description: 'interval of `: keep-alive` comments on v2 streams' }),
  concurrency: z
    .strictObject({
      fast: setting(scanLimit.optional(), { description: 'fast scans running at once; the rest queue', defaultText: 'socket budget / 32' }),
      deep: setting(scanLimit.optional(), { description: 'deep scans running at once; the rest queue', defaultText: 'socket budget / 512' }),
      udp: setting(scanLimit.optional(), { description: 'udp scans running at once; the rest queue', defaultText: 'socket budget / 32' }),
    })
    .prefault({}),
  scanBudgetSeconds: z
    .strictObject({
      fast: setting(seconds.default(120), { description: 'time budget of a fast scan; past it the scan ends `incomplete`' }),
      deep: setting(seconds.default(1800), { description: 'time budget of a deep scan; past it the scan ends `incomplete`' }),
      udp: setting(seconds.default(60), { description: 'time budget of a udp scan; ports still silent past it are reported filtered' }),
    })
    .prefault({}),
  scanner: z
    .strictObject({
      poller: setting(z.enum(POLLER_CHOICES).default('auto'), {
        description:
          "how the scanner waits on its sockets: `epoll` (Linux), `kqueue` (macOS, the BSDs), `poll` (any POSIX system) or `auto`, the platform's best; one this build lacks stops the start",
      }),
      engine: setting(z.enum(ENGINE_CHOICES).default('auto'), {
        description:
          'how the scanner probes: `syn` (half-open SYNs from a raw socket, each open port confirmed by one `connect()`; needs CAP_NET_RAW, without which it stops the start), `connect` (a `connect()` per port; any user) or `auto`: syn when the process has CAP_NET_RAW, else connect (see Scanner engines)',
      }),
      udpSourceAddresses: setting(z.array(ipAddress).default([]), {
        description:
          "addresses of this host a udp scan sends from, the probes shared out among those of the target's family: the target rate-limits its ICMP port unreachables per address it sends them to, so each address makes the scan faster (see UDP scans); each must be this host's, or the start stops",
        defaultText: "none: the kernel's choice",
      }),
    })
    .prefault({}),
  exposure: z
    .strictObject({
      facts: setting(z.boolean().default(true), {
        description:
          'after the sweep, probe each open port (TLS, HTTP, SSH, data stores that answer without credentials; never logging in, never writing) and rate its severity',
        defaultText: 'on',
      }),
      fingerprintDays: setting(z.number().int().min(0).default(30), {
        description:
          "days a compact fingerprint of an address's last complete scan (open ports, certificates, severities) is kept, to report what changed; 0 keeps none",
      }),
    })
    .prefault({}),
  drainSeconds: setting(seconds.default(30), { description: 'on SIGTERM, how long scans in flight may still finish' }),
  dns: z
    .strictObject({
      servers: setting(z.array(z.string().min(1)).optional(), { description: 'resolvers for `ptr_record`, `ip` or `ip:port`', defaultText: "the system's" }),
      timeoutMs: setting(z.number().int().positive().default(2000), { description: 'longest wait for a `ptr_record` lookup' }),
    })
    .prefault({}),
  limits: z
    .strictObject({
      edge: rateRule(30, 60, 'requests per IP, to every endpoint,'),
      fastPerAsn: rateRule(2000, 3600, 'fast scans started per ASN'),
      deepPerIp: rateRule(1, 300, 'deep scans started per IP'),
      deepPerAsn: rateRule(200, 3600, 'deep scans started per ASN'),
      udpPerIp: rateRule(1, 60, 'udp scans started per IP'),
      udpPerAsn: rateRule(2000, 3600, 'udp scans started per ASN'),
      webhooksPerIp: rateRule(10, 3600, 'webhook registrations (POSTs with `X-Callback-Url`) per IP'),
      ipv6PrefixLength: setting(z.number().int().min(1).max(128).default(64), {
        description:
          'an IPv6 caller counts against the per-IP limits as its network of this many bits (one host often owns a /64); IPv4 callers as their address',
      }),
    })
    .prefault({}),
  trustProxy: setting(z.array(cidr).default([]), { description: 'CIDRs of proxies whose forwarding header is believed' }),
  trustProxyHeader: setting(z.enum(['x-forwarded-for', 'forwarded']).default('x-forwarded-for'), {
    description: 'the one forwarding header the proxies in `trustProxy` write: `x-forwarded-for` or `forwarded` (RFC 7239); the other is ignored',
  }),
  optOutFile: setting(z.string().min(1).optional(), { description: 'file of IPs/CIDRs never scanned (403), reloaded on change', defaultText: 'none' }),
  asnDatabase: setting(z.string().min(1).optional(), {
    description: 'a `.mmdb` file or an ip-location-db CSV for ASN lookups',
    defaultText: 'bundled data',
  }),
  redisUrl: setting(redisUrl.optional(), { ...flagMeta(SERVE_FLAGS.redisUrl), defaultText: 'none' }),
  role: setting(z.enum(['all', 'api', 'scanner']).default('all'), flagMeta(SERVE_FLAGS.role)),
  region: setting(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}(,[A-Za-z0-9_-]{1,32})*$/, 'region names: letters, digits, _ and -, comma-separated')
      .optional(),
    { ...flagMeta(SERVE_FLAGS.region), defaultText: 'scanner: `default`; API: the region with most live scanner nodes' },
  ),
  chunkWindow: setting(z.number().int().min(1).max(64).default(16), {
    description: 'with --redis: chunks of one scan queued or running at once across all scanner nodes',
  }),
  redisWait: z
    .strictObject({
      replicas: setting(z.number().int().min(0).default(1), {
        description:
          'with --redis: a scan start (and a webhook registration) is kept through a failover once this many replicas hold it (`WAIT`); 0: not kept; never more than the primary has connected, none for a lone primary',
      }),
      mode: setting(z.enum(['replay', 'wait']).default('replay'), {
        description:
          'with --redis: `replay` answers at once and holds the start until the replicas have it, writing it again to a new primary if a failover came first (lost only if this node dies in those moments too); `wait` answers only once the replicas have it',
      }),
      timeoutMs: setting(z.number().int().min(1).default(500), {
        description:
          'with --redis: the longest one `WAIT` lasts; past it `wait` answers anyway and `replay` writes the start again and waits anew (for up to a minute); the log says `redis_unreplicated` for a start given up on',
      }),
    })
    .prefault({}),
  page: z
    .strictObject({
      ipv4Origin: setting(paneOrigin.optional(), {
        ...flagMeta(SERVE_FLAGS.ipv4Origin),
        defaultText: 'none: one pane, over whichever family the browser used',
      }),
      ipv6Origin: setting(paneOrigin.optional(), { ...flagMeta(SERVE_FLAGS.ipv6Origin), defaultText: 'none' }),
      origins: setting(z.array(origin).default([]), {
        description:
          'other origins the page is served at (its dual-stack hostname); with the two above, the only origins allowed to read answers cross-origin (CORS)',
      }),
    })
    .prefault({}),
  metrics: z
    .strictObject({
      listen: setting(
        z
          .string()
          .regex(/^(\[[0-9A-Fa-f:.]+\]|[^:\s]+)?:\d{1,5}$/, 'host:port, [IPv6]:port or :port')
          .refine((text) => Number(text.slice(text.lastIndexOf(':') + 1)) <= 65535, 'a port from 0 to 65535')
          .optional(),
        {
          description:
            'serve GET /metrics on a port of its own (`host:port`, `[::1]:9464` or `:9464` for every IPv4 address) instead of the HTTP port; it then answers nothing else',
          defaultText: 'the HTTP port',
        },
      ),
      allow: setting(z.array(cidr).default(METRICS_DEFAULT_ALLOW), {
        description: "networks (CIDRs, matched against the connection's peer) that may read GET /metrics; others get a 403",
        defaultText: 'loopback and private networks',
      }),
    })
    .prefault({}),
  webhooks: z
    .strictObject({
      retryDelaysSeconds: setting(z.array(z.number().min(0)).default([10, 60, 300, 1800, 7200]), {
        description: 'waits between delivery attempts; one attempt more than there are waits',
      }),
      timeoutSeconds: setting(seconds.default(5), { description: 'per delivery attempt' }),
    })
    .prefault({}),
});

export type Config = z.output<typeof configSchema>;

/** Every setting at its default. */
export const DEFAULT_CONFIG: Config = Object.freeze(configSchema.parse({}));

/** Each scan type's time budget, ms. */
export function scanBudgetsMs(config: Config): Record<ScanType, number> {
  const { fast, deep, udp } = config.scanBudgetSeconds;
  return { fast: fast * 1000, deep: deep * 1000, udp: udp * 1000 };
}

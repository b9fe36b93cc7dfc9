// The settings: one schema, a variable for each setting, the documented
// precedence, clear errors, and the README's table made from the schema.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';
import * as z from 'zod';

import { type Config, DEFAULT_CONFIG } from '../../src/config/config.js';
import { ConfigError, loadConfig, SETTINGS } from '../../src/config/config-sources.js';
import { configTable } from '../../src/config/config-table.js';
import { SERVE_FLAGS } from '../../src/config/serve-flags.js';

/** A valid value other than the default for every setting: as its variable's text, and as loaded. */
const SAMPLES: Record<string, [string, unknown]> = {
  host: ['127.0.0.1', '127.0.0.1'],
  port: ['9090', 9090],
  dataDir: ['/var/lib/selfscan', '/var/lib/selfscan'],
  allowPrivateTargets: ['yes', true],
  allowPrivateCallbacks: ['1', true],
  logLevel: ['debug', 'debug'],
  'http.server': ['node', 'node'],
  'http.headersTimeoutSeconds': ['5', 5],
  'http.requestTimeoutSeconds': ['30.5', 30.5],
  sseKeepAliveSeconds: ['5', 5],
  'concurrency.fast': ['12', 12],
  'concurrency.deep': ['3', 3],
  'concurrency.udp': ['40', 40],
  'scanBudgetSeconds.fast': ['60', 60],
  'scanBudgetSeconds.deep': ['900.5', 900.5],
  'scanBudgetSeconds.udp': ['30', 30],
  'scanner.poller': ['poll', 'poll'],
  'scanner.engine': ['connect', 'connect'],
  'scanner.udpSourceAddresses': ['192.0.2.10, 2001:DB8::0:10', ['192.0.2.10', '2001:db8::10']],
  drainSeconds: ['10', 10],
  'exposure.facts': ['0', false],
  'exposure.fingerprintDays': ['7', 7],
  'dns.servers': ['127.0.0.1:5353, 192.0.2.53', ['127.0.0.1:5353', '192.0.2.53']],
  'dns.timeoutMs': ['500', 500],
  'limits.edge.max': ['0', 0],
  'limits.edge.windowSeconds': ['120', 120],
  'limits.fastPerAsn.max': ['5', 5],
  'limits.fastPerAsn.windowSeconds': ['60', 60],
  'limits.deepPerIp.max': ['3', 3],
  'limits.deepPerIp.windowSeconds': ['30', 30],
  'limits.deepPerAsn.max': ['7', 7],
  'limits.deepPerAsn.windowSeconds': ['70', 70],
  'limits.udpPerIp.max': ['2', 2],
  'limits.udpPerIp.windowSeconds': ['90', 90],
  'limits.udpPerAsn.max': ['9', 9],
  'limits.udpPerAsn.windowSeconds': ['900', 900],
  'limits.webhooksPerIp.max': ['4', 4],
  'limits.webhooksPerIp.windowSeconds': ['600', 600],
  'limits.ipv6PrefixLength': ['56', 56],
  trustProxy: ['10.0.0.0/8,2001:db8::1', ['10.0.0.0/8', '2001:db8::1']],
  trustProxyHeader: ['forwarded', 'forwarded'],
  optOutFile: ['/etc/selfscan/optout.txt', '/etc/selfscan/optout.txt'],
  'metrics.listen': ['[::1]:9464', '[::1]:9464'],
  'metrics.allow': ['10.0.0.0/8,fd00::/8', ['10.0.0.0/8', 'fd00::/8']],
  asnDatabase: ['/srv/asn.mmdb', '/srv/asn.mmdb'],
  redisUrl: ['unix:///run/redis.sock', 'unix:///run/redis.sock'],
  role: ['scanner', 'scanner'],
  region: ['NL,FR', 'NL,FR'],
  chunkWindow: ['8', 8],
  'redisWait.replicas': ['2', 2],
  'redisWait.mode': ['wait', 'wait'],
  'redisWait.timeoutMs': ['250', 250],
  'page.ipv4Origin': ['https://ipv4.scan.example', 'https://ipv4.scan.example'],
  'page.ipv6Origin': ['https://ipv6.scan.example:8443', 'https://ipv6.scan.example:8443'],
  'page.origins': ['https://scan.example,http://localhost:8080', ['https://scan.example', 'http://localhost:8080']],
  'webhooks.retryDelaysSeconds': ['1,2,3', [1, 2, 3]],
  'webhooks.timeoutSeconds': ['2', 2],
};

function at(config: object, path: readonly string[]): unknown {
  return path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], config);
}

function configFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'selfscan-config-')), 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('the flags of serve', () => {
  it('are the settings the schema gives a flag, with their paths, meanings and kinds (a switch is a boolean)', () => {
    const fromSchema = SETTINGS.filter((s) => s.meta.flag !== undefined).map((s) => ({
      flag: s.meta.flag,
      path: s.path,
      description: s.meta.description,
      isSwitch: s.schema instanceof z.ZodBoolean,
    }));
    expect(Object.values(SERVE_FLAGS)).toEqual(fromSchema);
  });
});

describe('loadConfig', () => {
  it('gives the defaults when nothing is set', () => {
    expect(loadConfig({}, {})).toEqual(DEFAULT_CONFIG);
    expect(DEFAULT_CONFIG).toMatchObject({ host: '0.0.0.0', port: 8080, limits: { deepPerIp: { max: 1, windowSeconds: 300 } } });
  });

  it('has a sample for every setting, and nothing else', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(SETTINGS.map((s) => s.path.join('.')).sort());
  });

  it.each(SETTINGS.map((s) => [s.env, s] as const))('reads %s', (_env, setting) => {
    const [text, value] = SAMPLES[setting.path.join('.')]!;
    expect(at(loadConfig({}, { [setting.env]: text }), setting.path)).toEqual(value);
    expect(at(DEFAULT_CONFIG, setting.path)).not.toEqual(value);
  });

  it('lets flags win over the environment, and the environment over the file', () => {
    const file = configFile({ port: 1000, host: '192.0.2.1', limits: { edge: { max: 5 } } });
    const env = { SELFSCAN_CONFIG: file, SELFSCAN_PORT: '2000' };
    const config = loadConfig({ port: '3000' }, env);
    expect(config).toMatchObject({ port: 3000, host: '192.0.2.1', limits: { edge: { max: 5, windowSeconds: 60 } } });
    expect(loadConfig({}, env).port).toBe(2000);
    expect(loadConfig({ config: file }, {}).port).toBe(1000);
    expect(loadConfig({ 'allow-private-targets': true }, { SELFSCAN_ALLOW_PRIVATE_TARGETS: 'no' }).allowPrivateTargets).toBe(true);
  });

  it.each<[string, Record<string, string | boolean>, Record<string, string>, RegExp]>([
    ['a port out of range from a flag', { port: '70000' }, {}, /^port \(--port\): .*65535/],
    ['a port that is no number', {}, { SELFSCAN_PORT: 'http' }, /^port \(SELFSCAN_PORT\)/],
    ['a legacy IPv4 form in trustProxy', {}, { SELFSCAN_TRUST_PROXY: '10.1' }, /trustProxy\.0 \(SELFSCAN_TRUST_PROXY\): "10.1" is not an IP address or CIDR/],
    ['a prefix too long', {}, { SELFSCAN_TRUST_PROXY: '10.0.0.0/33' }, /prefix \/33/],
    [
      'a switch that is neither yes nor no',
      {},
      { SELFSCAN_ALLOW_PRIVATE_TARGETS: 'maybe' },
      /SELFSCAN_ALLOW_PRIVATE_TARGETS must be 1\/true\/yes or 0\/false\/no/,
    ],
    ['a negative retry delay', {}, { SELFSCAN_WEBHOOKS_RETRY_DELAYS_SECONDS: '10,-1' }, /webhooks\.retryDelaysSeconds\.1/],
    ['a concurrency of 0', {}, { SELFSCAN_CONCURRENCY_DEEP: '0' }, /concurrency\.deep/],
    ['an unknown log level', {}, { SELFSCAN_LOG_LEVEL: 'loud' }, /logLevel/],
    ['an unknown scanner engine', {}, { SELFSCAN_SCANNER_ENGINE: 'raw' }, /^scanner\.engine \(SELFSCAN_SCANNER_ENGINE\): .*"auto"\|"syn"\|"connect"/],
    ['a pane origin with a path', { 'ipv4-origin': 'https://v4.scan.example/page' }, {}, /page\.ipv4Origin \(--ipv4-origin\): an origin/],
    [
      'a pane origin that is an IPv6 literal',
      { 'ipv6-origin': 'http://[::1]:8080' },
      {},
      /page\.ipv6Origin \(--ipv6-origin\): a host name, not an IPv6 literal/,
    ],
    [
      'a udp source that is no address',
      {},
      { SELFSCAN_SCANNER_UDP_SOURCE_ADDRESSES: '192.0.2.10,eth0' },
      /scanner\.udpSourceAddresses\.1 \(SELFSCAN_SCANNER_UDP_SOURCE_ADDRESSES\): "eth0" is not an IP address/,
    ],
    ['a page origin that is no URL', {}, { SELFSCAN_PAGE_ORIGINS: 'scan.example' }, /page\.origins\.0 \(SELFSCAN_PAGE_ORIGINS\)/],
  ])('refuses %s, naming the setting and where it came from', (_name, flags, env, message) => {
    expect(() => loadConfig(flags, env)).toThrow(ConfigError);
    expect(() => loadConfig(flags, env)).toThrow(message);
  });

  it('takes the scanner engine from the file, the environment over it; auto when none is named', () => {
    expect(DEFAULT_CONFIG.scanner).toEqual({ poller: 'auto', engine: 'auto', udpSourceAddresses: [] });
    const file = configFile({ scanner: { engine: 'syn' } });
    expect(loadConfig({ config: file }, {}).scanner).toEqual({ poller: 'auto', engine: 'syn', udpSourceAddresses: [] });
    expect(loadConfig({ config: file }, { SELFSCAN_SCANNER_ENGINE: 'connect' }).scanner.engine).toBe('connect');
    expect(() => loadConfig({ config: configFile({ scanner: { engine: 'SYN' } }) }, {})).toThrow(/^scanner\.engine \(config file .*\): /);
  });

  it('refuses a config file that is unreadable, not JSON, not an object, or has an unknown key', () => {
    expect(() => loadConfig({ config: '/nonexistent/selfscan.json' }, {})).toThrow(/cannot read config file/);
    expect(() => loadConfig({ config: configFile('{ port: 1') }, {})).toThrow(/is not valid JSON/);
    expect(() => loadConfig({ config: configFile([1]) }, {})).toThrow(/must hold a JSON object/);
    expect(() => loadConfig({ config: configFile({ limits: { edge: { maximum: 3 } } }) }, {})).toThrow(
      /limits\.edge \(config file .*\): Unrecognized key: "maximum"/,
    );
  });
});

describe('the README', () => {
  it('documents exactly the settings of the schema (npm run docs:config rewrites the table)', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = /<!-- config:start -->\n([\s\S]*?)\n<!-- config:end -->/.exec(readme)?.[1];
    expect(table).toBe(configTable());
  });

  it('states the default of every rate limit in its table of limits', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const limits = readme.slice(readme.indexOf('## Limits and abuse controls'));
    const rows: Record<string, keyof Config['limits']> = {
      'every request of an IP': 'edge',
      'fast scans per ASN': 'fastPerAsn',
      'deep scans per IP': 'deepPerIp',
      'deep scans per ASN': 'deepPerAsn',
      'webhook registrations per IP': 'webhooksPerIp',
    };
    const windows: Record<string, number> = { minute: 60, hour: 3600 };
    for (const [scope, name] of Object.entries(rows)) {
      const row = new RegExp(`^\\| ${scope} \\| (\\d+) per (\\d+ )?(minute|hour)s? \\|`, 'm').exec(limits);
      expect(row, `README row for ${scope}`).not.toBeNull();
      const [, max, count, unit] = row!;
      const { max: defaultMax, windowSeconds } = DEFAULT_CONFIG.limits[name] as { max: number; windowSeconds: number };
      expect({ max: Number(max), windowSeconds: Number(count ?? 1) * windows[unit!]! }, scope).toEqual({ max: defaultMax, windowSeconds });
    }
  });
});

// Configuration: defaults, then a JSON config file, then SELFSCAN_*
// environment variables, then command-line flags; later ones win.
import { readFileSync } from 'node:fs';

import ipaddr from 'ipaddr.js';

import { DEFAULT_LIMITS, LIMIT_NAMES, type LimitsConfig } from './limits/limits-config.js';
import { DEFAULT_WEBHOOK_CONFIG, type WebhookConfig } from './webhook/webhook-service.js';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Lets loopback and private callers be scanned: local trials and tests only. */
  allowPrivateTargets: boolean;
  /** Seconds between `: keep-alive` comments on v2 streams. */
  sseKeepAliveSeconds: number;
  /** Scans of each type running at once; default: sized from the socket budget. */
  concurrency: { fast?: number; deep?: number };
  /** Time budget of a scan; past it the scan ends `incomplete`. */
  scanBudgetSeconds: { fast: number; deep: number };
  /** On SIGTERM, how long scans in flight may still finish. */
  drainSeconds: number;
  /** Reverse DNS for ptr_record: servers as `ip` or `ip:port` (default: the system's). */
  dns: { servers?: string[]; timeoutMs: number };
  /** Rate limits; `max: 0` turns one off. */
  limits: LimitsConfig;
  /** CIDRs of proxies whose X-Forwarded-For is believed. */
  trustProxy: string[];
  /** File of opted-out IPs/CIDRs, reloaded when it changes. */
  optOutFile?: string;
  /** ASN data: a .mmdb file or an ip-location-db CSV; default the bundled data. */
  asnDatabase?: string;
  /** Lets webhooks go to loopback and private addresses: local trials and tests only. */
  allowPrivateCallbacks: boolean;
  webhooks: WebhookConfig;
}

export const DEFAULT_CONFIG: Config = {
  host: '0.0.0.0',
  port: 8080,
  dataDir: './data',
  allowPrivateTargets: false,
  sseKeepAliveSeconds: 15,
  concurrency: {},
  scanBudgetSeconds: { fast: 120, deep: 1800 },
  drainSeconds: 30,
  dns: { timeoutMs: 2000 },
  limits: DEFAULT_LIMITS,
  trustProxy: [],
  allowPrivateCallbacks: false,
  webhooks: DEFAULT_WEBHOOK_CONFIG,
};

/** A configuration value that is not usable; the message says which and why. */
export class ConfigError extends Error {}

/** What the command line set (undefined: not given). */
export interface ConfigFlags {
  host?: string;
  port?: string;
  dataDir?: string;
  config?: string;
  allowPrivateTargets?: boolean;
  allowPrivateCallbacks?: boolean;
}

type Env = Record<string, string | undefined>;

function readConfigFile(path: string): Partial<Config> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config file ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object`);
  }
  return parsed as Partial<Config>;
}

function toPort(value: unknown, source: string): number {
  const port = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${source} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function positive(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function isYes(value: string): boolean {
  return ['1', 'true', 'yes'].includes(value.toLowerCase());
}

function isCidr(text: string): boolean {
  try {
    ipaddr.parseCIDR(text);
    return true;
  } catch {
    return false;
  }
}

function validate(config: Config): Config {
  if (typeof config.host !== 'string' || config.host === '') throw new ConfigError('host must be a non-empty string');
  if (typeof config.dataDir !== 'string' || config.dataDir === '') throw new ConfigError('dataDir must be a non-empty string');
  if (typeof config.allowPrivateTargets !== 'boolean') throw new ConfigError('allowPrivateTargets must be true or false');
  if (typeof config.allowPrivateCallbacks !== 'boolean') throw new ConfigError('allowPrivateCallbacks must be true or false');
  const delays = config.webhooks.retryDelaysSeconds;
  if (!Array.isArray(delays) || delays.some((d) => typeof d !== 'number' || !(d >= 0))) {
    throw new ConfigError('webhooks.retryDelaysSeconds must be a list of seconds (numbers >= 0)');
  }
  positive(config.webhooks.timeoutSeconds, 'webhooks.timeoutSeconds');
  config.port = toPort(config.port, 'port');
  positive(config.sseKeepAliveSeconds, 'sseKeepAliveSeconds');
  positive(config.drainSeconds, 'drainSeconds');
  positive(config.scanBudgetSeconds.fast, 'scanBudgetSeconds.fast');
  positive(config.scanBudgetSeconds.deep, 'scanBudgetSeconds.deep');
  positive(config.dns.timeoutMs, 'dns.timeoutMs');
  for (const name of LIMIT_NAMES) {
    const rule = config.limits[name];
    if (!Number.isInteger(rule.max) || rule.max < 0) throw new ConfigError(`limits.${name}.max must be a whole number (0 = unlimited)`);
    positive(rule.windowSeconds, `limits.${name}.windowSeconds`);
  }
  if (!Array.isArray(config.trustProxy)) throw new ConfigError('trustProxy must be a list of CIDRs');
  for (const cidr of config.trustProxy) {
    if (typeof cidr !== 'string' || !(ipaddr.isValid(cidr) || isCidr(cidr))) throw new ConfigError(`trustProxy: ${JSON.stringify(cidr)} is not an address or CIDR`);
  }
  for (const key of ['optOutFile', 'asnDatabase'] as const) {
    if (config[key] !== undefined && (typeof config[key] !== 'string' || config[key] === '')) throw new ConfigError(`${key} must be a file path`);
  }
  for (const type of ['fast', 'deep'] as const) {
    const value = config.concurrency[type];
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new ConfigError(`concurrency.${type} must be a whole number of at least 1`);
    }
  }
  return config;
}

function mergeLimits(fromFile: Partial<Record<keyof LimitsConfig, Partial<LimitsConfig['edge']>>> | undefined): LimitsConfig {
  const limits = structuredClone(DEFAULT_LIMITS);
  for (const name of LIMIT_NAMES) limits[name] = { ...limits[name], ...fromFile?.[name] };
  return limits;
}

/** The effective configuration. Throws ConfigError for anything unusable. */
export function loadConfig(flags: ConfigFlags = {}, env: Env = process.env): Config {
  const file = flags.config ?? env.SELFSCAN_CONFIG;
  const fromFile = file === undefined ? {} : readConfigFile(file);
  const config: Config = {
    ...DEFAULT_CONFIG,
    ...fromFile,
    concurrency: { ...DEFAULT_CONFIG.concurrency, ...fromFile.concurrency },
    scanBudgetSeconds: { ...DEFAULT_CONFIG.scanBudgetSeconds, ...fromFile.scanBudgetSeconds },
    dns: { ...DEFAULT_CONFIG.dns, ...fromFile.dns },
    limits: mergeLimits(fromFile.limits),
    webhooks: { ...DEFAULT_WEBHOOK_CONFIG, ...fromFile.webhooks },
  };
  if (env.SELFSCAN_HOST !== undefined) config.host = env.SELFSCAN_HOST;
  if (env.SELFSCAN_PORT !== undefined) config.port = toPort(env.SELFSCAN_PORT, 'SELFSCAN_PORT');
  if (env.SELFSCAN_DATA_DIR !== undefined) config.dataDir = env.SELFSCAN_DATA_DIR;
  if (env.SELFSCAN_ALLOW_PRIVATE_TARGETS !== undefined) config.allowPrivateTargets = isYes(env.SELFSCAN_ALLOW_PRIVATE_TARGETS);
  if (env.SELFSCAN_ALLOW_PRIVATE_CALLBACKS !== undefined) config.allowPrivateCallbacks = isYes(env.SELFSCAN_ALLOW_PRIVATE_CALLBACKS);
  if (flags.host !== undefined) config.host = flags.host;
  if (flags.port !== undefined) config.port = toPort(flags.port, '--port');
  if (flags.dataDir !== undefined) config.dataDir = flags.dataDir;
  if (flags.allowPrivateTargets) config.allowPrivateTargets = true;
  if (flags.allowPrivateCallbacks) config.allowPrivateCallbacks = true;
  return validate(config);
}

// `--policy FILE`: the same expectations and limits as the flags, kept in a JSON file
// in the repository, so a deploy or CI job reads them from one place and
// code-scanning alerts point at the line that states them.
import { readFileSync } from 'node:fs';

import { type RegionsAsked, refuseRegions, regionsKey } from '../api/regions-asked.js';
import { isSeverityLevel, SEVERITIES, type SeverityLevel } from '../api/severity-levels.js';
import { parsePortList } from './port-list.js';
import { UsageError } from './usage-error.js';

/** What a policy file says; every key is optional. */
export interface Policy {
  server?: string;
  deep?: boolean;
  udp?: boolean;
  expectOpen: number[];
  expectClosed: number[];
  onlyOpen?: boolean;
  allowIncomplete?: boolean;
  timeoutSeconds?: number;
  maxSeverity?: SeverityLevel;
  certMinDays?: number;
  maxAmplification?: number;
  regions?: RegionsAsked;
  expectSameEverywhere?: boolean;
  /** The file as given, and the line of each key in it (1-based). */
  path: string;
  lines: Record<string, number>;
}

const KEYS = [
  'server',
  'deep',
  'udp',
  'expect_open',
  'expect_closed',
  'only_open',
  'allow_incomplete',
  'timeout_seconds',
  'max_severity',
  'cert_min_days',
  'max_amplification',
  'regions',
  'expect_same_everywhere',
] as const;

/** A port list in a policy: `"22,443"`, or an array of ports and `"8000-8099"` ranges. */
function ports(value: unknown, key: string): number[] {
  if (value === undefined) return [];
  if (typeof value === 'string') return parsePortList(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || Number.isInteger(item))) return parsePortList(value.join(','));
  throw new UsageError(`policy: ${key} must be a port list like "22,443,8000-8099" or [22, "8000-8099"]`);
}

/** The policy's regions: `"all"`, `"NL,FR"`, or an array of names. */
function regions(value: unknown): RegionsAsked | undefined {
  if (value === undefined) return undefined;
  const text = Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.join(',') : value;
  if (typeof text !== 'string') throw new UsageError('policy: regions must be "all", names like "NL,FR", or an array of names');
  const refused = refuseRegions(text);
  if (refused !== null) throw new UsageError(`policy: ${refused}`);
  return regionsKey(text);
}

function optional<T>(value: unknown, key: string, type: 'string' | 'boolean' | 'number'): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== type) throw new UsageError(`policy: ${key} must be a ${type}`);
  return value as T;
}

/** Reads and checks the policy file at `path`; throws UsageError. */
export function readPolicy(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`policy: cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`policy: ${path} is not JSON: ${(error as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new UsageError(`policy: ${path} must hold a JSON object`);
  const object = json as Record<string, unknown>;
  const unknown = Object.keys(object).filter((key) => !(KEYS as readonly string[]).includes(key) && key !== '$comment');
  if (unknown.length > 0) throw new UsageError(`policy: unknown key ${JSON.stringify(unknown[0])} (known: ${KEYS.join(', ')})`);
  const lines: Record<string, number> = {};
  text.split('\n').forEach((line, i) => {
    const key = /^\s*"([a-z_]+)"\s*:/.exec(line)?.[1];
    if (key !== undefined && lines[key] === undefined) lines[key] = i + 1;
  });
  const timeout = optional<number>(object.timeout_seconds, 'timeout_seconds', 'number');
  if (timeout !== undefined && !(timeout > 0)) throw new UsageError('policy: timeout_seconds must be above 0');
  const maxSeverity = optional<string>(object.max_severity, 'max_severity', 'string');
  if (maxSeverity !== undefined && !isSeverityLevel(maxSeverity)) throw new UsageError(`policy: max_severity must be one of ${SEVERITIES.join(', ')}`);
  const certMinDays = optional<number>(object.cert_min_days, 'cert_min_days', 'number');
  if (certMinDays !== undefined && !(Number.isInteger(certMinDays) && certMinDays >= 0))
    throw new UsageError('policy: cert_min_days must be a whole number of days, 0 or more');
  const maxAmplification = optional<number>(object.max_amplification, 'max_amplification', 'number');
  if (maxAmplification !== undefined && !(maxAmplification > 0)) throw new UsageError('policy: max_amplification must be a factor above 0, like 2 or 1.5');
  return {
    server: optional(object.server, 'server', 'string'),
    deep: optional(object.deep, 'deep', 'boolean'),
    udp: optional(object.udp, 'udp', 'boolean'),
    expectOpen: ports(object.expect_open, 'expect_open'),
    expectClosed: ports(object.expect_closed, 'expect_closed'),
    onlyOpen: optional(object.only_open, 'only_open', 'boolean'),
    allowIncomplete: optional(object.allow_incomplete, 'allow_incomplete', 'boolean'),
    timeoutSeconds: timeout,
    maxSeverity,
    certMinDays,
    maxAmplification,
    regions: regions(object.regions),
    expectSameEverywhere: optional(object.expect_same_everywhere, 'expect_same_everywhere', 'boolean'),
    path,
    lines,
  };
}

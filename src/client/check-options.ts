// The flags of `selfscan check` and the policy file, made into one plan:
// flags override the policy (a port named by a flag takes the flag's
// expectation, a limit set by a flag replaces the file's), and every mistake is a UsageError before anything is sent.
// The scan type is asked by flag and policy alike: --deep and --udp (the keys deep and udp) exclude each other wherever they come from.
import { parseArgs } from 'node:util';

import { type RegionsAsked, refuseRegions, regionsKey, regionsNamed } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import { isSeverityLevel, SEVERITIES, type SeverityLevel } from '../api/severity-levels.js';
import { type Policy, readPolicy } from './policy-file.js';
import { parsePortList } from './port-list.js';
import { SCANNED_PORTS } from './scan-protocol.js';
import { UsageError } from './usage-error.js';

/** The report formats. */
export const REPORT_FORMATS = ['text', 'json', 'junit', 'sarif'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** A report to write: to a file, or to stdout when `path` is null. */
export interface ReportTarget {
  format: ReportFormat;
  path: string | null;
}

/** What one port is expected to be, and who said so. */
export interface Expectation {
  port: number;
  expect: 'open' | 'closed';
  from: 'flag' | 'policy';
}

/** A limit on every open port, and who set it. */
export interface Limit<T> {
  value: T;
  from: 'flag' | 'policy';
}

/** Everything one run does. */
export interface CheckPlan {
  server: URL;
  scanType: ScanType;
  expectations: Expectation[];
  onlyOpen: boolean;
  /** No open port's risk may be worse than this severity. */
  maxSeverity?: Limit<SeverityLevel>;
  /** No open port's TLS certificate may have fewer days left than this. */
  certMinDays?: Limit<number>;
  /** No open UDP port may answer with more than this many times the bytes it was sent (udp scans). */
  maxAmplification?: Limit<number>;
  /** Scan from these regions of a cluster at once (`all`, or names sorted); undefined: from one place. */
  regions?: RegionsAsked;
  /** Every region must see each port the same, and finish (--expect-same-everywhere). */
  sameEverywhere?: { from: 'flag' | 'policy' };
  allowIncomplete: boolean;
  waitRateLimit: boolean;
  timeoutMs: number;
  family?: 4 | 6;
  localAddress?: string;
  progress: boolean;
  reports: ReportTarget[];
  policy?: Policy;
}

/** Seconds a run may take unless --timeout says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS: Readonly<Record<ScanType, number>> = { fast: 120, deep: 900, udp: 120 };

const OPTIONS = {
  server: { type: 'string' },
  deep: { type: 'boolean' },
  udp: { type: 'boolean' },
  'expect-open': { type: 'string', multiple: true },
  'expect-closed': { type: 'string', multiple: true },
  'only-open': { type: 'boolean' },
  'max-severity': { type: 'string' },
  'cert-min-days': { type: 'string' },
  'max-amplification': { type: 'string' },
  regions: { type: 'string' },
  'expect-same-everywhere': { type: 'boolean' },
  policy: { type: 'string' },
  report: { type: 'string', multiple: true },
  ipv4: { type: 'boolean', short: '4' },
  ipv6: { type: 'boolean', short: '6' },
  source: { type: 'string' },
  'allow-incomplete': { type: 'boolean' },
  'wait-rate-limit': { type: 'boolean' },
  timeout: { type: 'string' },
  'no-progress': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function report(text: string): ReportTarget {
  const at = text.indexOf('=');
  const format = (at < 0 ? text : text.slice(0, at)) as ReportFormat;
  if (!REPORT_FORMATS.includes(format)) throw new UsageError(`unknown report format ${JSON.stringify(format)} (one of ${REPORT_FORMATS.join(', ')})`);
  const path = at < 0 ? null : text.slice(at + 1);
  if (path === '') throw new UsageError(`--report ${format}= needs a path (or - for stdout)`);
  return { format, path: path === '-' ? null : path };
}

function serverUrl(text: string | undefined): URL {
  if (text === undefined || text === '') throw new UsageError('no server: pass --server URL or set SELFSCAN_SERVER');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server must be an http: or https: URL, not ${url.protocol}`);
  return url;
}

/** The flag's limit if given, else the policy's; undefined when neither sets one. */
function limit<T>(flag: string | undefined, parse: (text: string) => T, fromPolicy: T | undefined): Limit<T> | undefined {
  if (flag !== undefined) return { value: parse(flag), from: 'flag' };
  return fromPolicy === undefined ? undefined : { value: fromPolicy, from: 'policy' };
}

function severityLevel(text: string): SeverityLevel {
  if (!isSeverityLevel(text)) throw new UsageError(`--max-severity must be one of ${SEVERITIES.join(', ')}, not ${JSON.stringify(text)}`);
  return text;
}

function days(text: string): number {
  if (!/^[0-9]{1,5}$/.test(text)) throw new UsageError(`--cert-min-days needs a whole number of days, 0 or more, not ${JSON.stringify(text)}`);
  return Number(text);
}

function amplification(text: string): number {
  const factor = /^[0-9]{1,6}(\.[0-9]{1,3})?$/.test(text) ? Number(text) : 0;
  if (!(factor > 0)) throw new UsageError(`--max-amplification needs a factor above 0, like 2 or 1.5, not ${JSON.stringify(text)}`);
  return factor;
}

/** The scan type --deep, --udp and the policy's deep and udp ask for: fast unless one does; two are a mistake. */
function scanTypeAsked(values: { deep?: boolean; udp?: boolean }, policy: Policy | undefined): ScanType {
  const deep = values.deep ? '--deep' : policy?.deep ? "the policy's deep" : undefined;
  const udp = values.udp ? '--udp' : policy?.udp ? "the policy's udp" : undefined;
  if (deep !== undefined && udp !== undefined) throw new UsageError(`${deep} and ${udp} exclude each other: a scan is deep (TCP) or udp`);
  return deep !== undefined ? 'deep' : udp !== undefined ? 'udp' : 'fast';
}

/** Refuses expectations of ports the scan does not cover: a fast scan's 32 TCP ports, a udp scan's 20 UDP ports. */
function refuseUncovered(scanType: ScanType, expectations: readonly Expectation[]): void {
  if (scanType === 'deep') return;
  const covered = SCANNED_PORTS[scanType];
  const outside = expectations.filter(({ port }) => !covered.includes(port)).map(({ port }) => port);
  if (outside.length === 0) return;
  const named = `${outside.length === 1 ? 'port' : 'ports'} ${outside.slice(0, 10).join(',')}${outside.length > 10 ? ',…' : ''}`;
  throw new UsageError(
    scanType === 'fast'
      ? `a fast scan covers only ${covered.join(',')}; ${named} need --deep`
      : `a udp scan covers only UDP ${covered.join(',')}; ${named} ${outside.length === 1 ? 'is' : 'are'} not among them`,
  );
}

/** --max-amplification (or the policy's max_amplification) judges what UDP ports answered: it needs a udp scan. */
function amplificationLimit(flag: string | undefined, policy: Policy | undefined, scanType: ScanType): Limit<number> | undefined {
  const asked = limit(flag, amplification, policy?.maxAmplification);
  if (asked !== undefined && scanType !== 'udp')
    throw new UsageError(`${asked.from === 'flag' ? '--max-amplification' : 'policy: max_amplification'} judges a udp scan's answers: pass --udp`);
  return asked;
}

function regions(text: string): RegionsAsked {
  const refused = refuseRegions(text);
  if (refused !== null) throw new UsageError(`--regions: ${refused}`);
  return regionsKey(text);
}

/** --expect-same-everywhere as the flag or the policy asks; it compares regions, so it needs several. */
function sameEverywhere(flag: boolean | undefined, policy: Policy | undefined, asked: RegionsAsked | undefined): CheckPlan['sameEverywhere'] {
  const from = flag ? 'flag' : policy?.expectSameEverywhere ? 'policy' : undefined;
  if (from === undefined) return undefined;
  if (asked === undefined) throw new UsageError('--expect-same-everywhere compares what several regions see: pass --regions all or --regions NL,FR');
  const named = regionsNamed(asked);
  if (named !== null && named.length < 2)
    throw new UsageError(`--expect-same-everywhere compares what several regions see: --regions ${asked} names one; pass all or two or more`);
  return { from };
}

/** The plan of `selfscan check ARGS`, or 'help'; throws UsageError. */
export function parseCheckArgs(args: string[], env: NodeJS.ProcessEnv): CheckPlan | 'help' {
  let values: ReturnType<typeof parseArgs<{ args: string[]; strict: true; options: typeof OPTIONS }>>['values'];
  try {
    values = parseArgs({ args, strict: true, options: OPTIONS }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  if (values.ipv4 && values.ipv6) throw new UsageError('-4 and -6 exclude each other');
  const policy = values.policy === undefined ? undefined : readPolicy(values.policy);
  const scanType = scanTypeAsked(values, policy);

  const byPort = new Map<number, Expectation>();
  for (const port of policy?.expectOpen ?? []) byPort.set(port, { port, expect: 'open', from: 'policy' });
  for (const port of policy?.expectClosed ?? []) {
    if (byPort.has(port)) throw new UsageError(`policy: port ${port} is in both expect_open and expect_closed`);
    byPort.set(port, { port, expect: 'closed', from: 'policy' });
  }
  const flagOpen = (values['expect-open'] ?? []).flatMap(parsePortList);
  const flagClosed = new Set((values['expect-closed'] ?? []).flatMap(parsePortList));
  for (const port of flagOpen) {
    if (flagClosed.has(port)) throw new UsageError(`port ${port} is in both --expect-open and --expect-closed`);
    byPort.set(port, { port, expect: 'open', from: 'flag' });
  }
  for (const port of flagClosed) byPort.set(port, { port, expect: 'closed', from: 'flag' });
  const expectations = [...byPort.values()].sort((a, b) => a.port - b.port);
  refuseUncovered(scanType, expectations);

  const regionsAsked = values.regions === undefined ? policy?.regions : regions(values.regions);

  const timeoutText = values.timeout;
  const timeoutSeconds = timeoutText === undefined ? (policy?.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS[scanType]) : Number(timeoutText);
  if (!(timeoutSeconds > 0)) throw new UsageError(`--timeout needs seconds above 0, not ${JSON.stringify(timeoutText)}`);

  return {
    server: serverUrl(values.server ?? env.SELFSCAN_SERVER ?? policy?.server),
    scanType,
    expectations,
    onlyOpen: values['only-open'] ?? policy?.onlyOpen ?? false,
    maxSeverity: limit(values['max-severity'], severityLevel, policy?.maxSeverity),
    certMinDays: limit(values['cert-min-days'], days, policy?.certMinDays),
    maxAmplification: amplificationLimit(values['max-amplification'], policy, scanType),
    regions: regionsAsked,
    sameEverywhere: sameEverywhere(values['expect-same-everywhere'], policy, regionsAsked),
    allowIncomplete: values['allow-incomplete'] ?? policy?.allowIncomplete ?? false,
    waitRateLimit: values['wait-rate-limit'] ?? false,
    timeoutMs: timeoutSeconds * 1000,
    family: values.ipv4 ? 4 : values.ipv6 ? 6 : undefined,
    localAddress: values.source,
    progress: !values['no-progress'],
    reports: (values.report ?? ['text']).map(report),
    policy,
  };
}

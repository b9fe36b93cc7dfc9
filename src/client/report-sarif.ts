// The sarif report (SARIF 2.1.0), for code scanning: one rule per kind of
// check, one result per failed check; a limit's result carries the
// `security-severity` of its finding (the port's severity, or the
// certificate's), so each alert is as grave as what was found. GitHub wants every result located in
// a repository file, so a result points at the line of the policy file
// (--policy) that states the expectation; without a policy file results
// carry no location. partialFingerprints stay the same from run to run
// (rule, port or region, scanned address), so an alert stays one alert.
// The sameness of regions has a result per port seen differently (with the
// regions on each side) and per region that did not finish. A udp scan's
// results carry `protocol: udp` and what the port answered (amplification,
// bytes, evidence), their fingerprints name the port `53/udp`, and the run's
// properties list every open UDP port with the same.
import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';

import { SECURITY_SEVERITY_SCORE } from '../api/severity-levels.js';
import type { CheckOutcome } from './check-outcome.js';
import type { Check, Rule } from './checks.js';
import { type UdpPort, udpAnswers } from './udp-answers.js';

interface RuleText {
  name: string;
  short: string;
  full: string;
  help: string;
  severity: string;
  /** The policy file's key that states it. */
  key: string;
}

const RULES: Readonly<Record<Rule, RuleText>> = {
  'expect-open': {
    name: 'ExpectedPortNotReachable',
    short: 'A port expected open is not reachable',
    full: 'A port the policy expects open (a service meant for the public) was closed or filtered when scanned from outside: the service is down or a firewall blocks it.',
    help: 'Check that the service listens on the public address and that no firewall or security group drops the port.',
    severity: '4.0',
    key: 'expect_open',
  },
  'expect-closed': {
    name: 'ExpectedPortExposed',
    short: 'A port expected closed is reachable from outside',
    full: 'A port the policy expects closed or filtered accepted a connection from outside: a service meant to stay private is exposed.',
    help: 'Bind the service to a private address or loopback, or drop the port in the firewall; then run the check again.',
    severity: '8.0',
    key: 'expect_closed',
  },
  'only-open': {
    name: 'UnexpectedPortOpen',
    short: 'A port not expected open is reachable from outside',
    full: 'With only_open (--only-open) every open port must be one the policy expects open; this one is open and was not expected.',
    help: 'Close the port, or add it to expect_open if it is meant to be public.',
    severity: '7.0',
    key: 'only_open',
  },
  'max-severity': {
    name: 'ExposureAboveSeverityLimit',
    short: 'An open port is riskier than the severity limit',
    full: 'With max_severity (--max-severity) no open port may be worse than the limit; the server judged this one worse, from what it learned of the port (a data store that answers without a password, a remote login, a lapsing certificate…).',
    help: 'Do what the finding says (the server says why and what to do), or close the port; then run the check again.',
    severity: SECURITY_SEVERITY_SCORE.high,
    key: 'max_severity',
  },
  'cert-min-days': {
    name: 'CertificateNearExpiry',
    short: 'A TLS certificate has fewer days left than the limit',
    full: 'With cert_min_days (--cert-min-days) every certificate an open port serves must stay valid at least that many days; this one expires sooner, or has expired.',
    help: 'Renew the certificate, and check that renewal is automatic (a certbot or ACME client timer, for example).',
    severity: SECURITY_SEVERITY_SCORE.medium,
    key: 'cert_min_days',
  },
  'max-amplification': {
    name: 'UdpAmplifierAboveLimit',
    short: 'An open UDP port answers with more bytes than the amplification limit',
    full: "With max_amplification (--max-amplification) no open UDP port may answer with more than that many times the bytes it was sent; this one does: with a forged source address anyone can aim its answers at a third party, a reflection attack at that many times the attacker's bandwidth.",
    help: 'Close the UDP port to the internet (firewall), bind the service to a private address, or configure it not to answer strangers; then run the check again.',
    severity: SECURITY_SEVERITY_SCORE.high,
    key: 'max_amplification',
  },
  'same-everywhere': {
    name: 'PortSeenDifferentlyAcrossRegions',
    short: 'A port is not the same from every region',
    full: 'With expect_same_everywhere (--expect-same-everywhere) every region must see each port the same and finish its scan; this port was open from some regions and filtered or closed from others (a firewall or security group that allows some source ranges, a geo block, an edge or anycast node configured differently), or a region could not verify every port.',
    help: 'Find the firewall, security group or edge that treats the regions differently and make them agree; if a region did not finish, run the check again.',
    severity: '6.0',
    key: 'expect_same_everywhere',
  },
};

const RULE_IDS = Object.keys(RULES) as Rule[];

function location(outcome: CheckOutcome, check: Check): object[] {
  const policy = outcome.plan.policy;
  if (policy === undefined) return [];
  const key = RULES[check.rule].key;
  const line = check.from === 'policy' ? (policy.lines[key] ?? 1) : 1;
  const uri = relative(process.cwd(), policy.path).split(sep).join('/');
  return [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: line } } }];
}

/** A sameness result's regions: those on each side of its port, or the region that did not finish. */
function regionsOf({ result }: CheckOutcome, check: Check): object {
  if (check.rule !== 'same-everywhere') return {};
  if (check.region !== undefined) return { region: check.region };
  const difference = result?.differences?.find(({ port }) => port === check.port);
  return difference === undefined
    ? {}
    : { regions: { open: difference.open, filtered: difference.filtered, closed: difference.closed, unknown: difference.unknown } };
}

/** What an open UDP port answered, as SARIF properties. */
function udpProperties(port: UdpPort): object {
  const { service, amplification, bytes_sent, bytes_received, evidence } = port.facts.udp;
  return { service, amplification, bytesSent: bytes_sent, bytesReceived: bytes_received, evidence };
}

/** A udp scan's properties of a result: the protocol, and what its port answered (when it names an open port). */
function udpOf(answers: UdpPort[] | null, check: Check): object {
  const port = answers?.find((answer) => answer.port === check.port);
  return { protocol: 'udp', ...(port === undefined ? {} : udpProperties(port)) };
}

/** The sarif report of `outcome`. */
export function sarifReport(outcome: CheckOutcome): string {
  const { result, checks, error, plan } = outcome;
  const ip = result?.ip ?? '';
  const udp = plan.scanType === 'udp';
  const answers = udp && result !== null ? udpAnswers(result) : null;
  const results = checks
    .filter((check) => check.outcome === 'fail')
    .map((check) => ({
      ruleId: check.rule,
      ruleIndex: RULE_IDS.indexOf(check.rule),
      level: 'error',
      message: { text: `${check.message} (${plan.scanType} scan of ${ip} by ${plan.server.origin})` },
      locations: location(outcome, check),
      partialFingerprints: {
        'selfscanCheck/v1': createHash('sha256')
          .update(`${check.rule}|${check.port ?? check.region}${udp && check.port !== undefined ? '/udp' : ''}|${ip}`)
          .digest('hex')
          .slice(0, 32),
      },
      properties: {
        port: check.port,
        state: check.state,
        ip,
        ...regionsOf(outcome, check),
        ...(udp ? udpOf(answers, check) : {}),
        'security-severity': check.severity === undefined ? RULES[check.rule].severity : SECURITY_SEVERITY_SCORE[check.severity],
        ...(check.severity === undefined ? {} : { severity: check.severity }),
      },
    }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'selfscan check',
            informationUri: 'https://www.npmjs.com/package/selfscan-check',
            rules: RULE_IDS.map((id) => ({
              id,
              name: RULES[id].name,
              shortDescription: { text: RULES[id].short },
              fullDescription: { text: RULES[id].full },
              help: { text: RULES[id].help, markdown: RULES[id].help },
              defaultConfiguration: { level: 'error' },
              properties: { 'security-severity': RULES[id].severity, tags: ['security', 'network'] },
            })),
          },
        },
        invocations: [
          {
            executionSuccessful: error === null,
            exitCode: outcome.exitCode,
            startTimeUtc: outcome.startedAt.toISOString(),
            endTimeUtc: new Date(outcome.startedAt.getTime() + outcome.durationMs).toISOString(),
            toolExecutionNotifications: error === null ? [] : [{ level: 'error', message: { text: error.message }, descriptor: { id: error.kind } }],
          },
        ],
        results,
        properties: {
          verdict: outcome.verdict,
          scanType: plan.scanType,
          ip,
          status: result?.status ?? null,
          ...(answers === null
            ? {}
            : { openUdpPorts: answers.map((port) => ({ port: port.port, severity: port.risk?.severity ?? null, ...udpProperties(port) })) }),
        },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

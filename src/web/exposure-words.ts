// What the server learned of a scan's open ports, in the page's words: each
// severity as a label and a symbol (never colour alone), the facts of a port
// (TLS, HTTP, SSH, a data store that answers without a password) and what
// changed since the last scan. One place for the script and the
// no-JavaScript pages; each escapes the words its own way (textContent, the
// html template), since titles, banners and certificate names come from the
// scanned host. No DOM, no Node, no zod: the browser bundle imports it.
import { ACCESS_SERVICE_NAMES } from '../api/access-service-names.js';
import type { Port } from '../api/port.js';
import type { AccessFacts, HttpFacts, SshFacts, TlsFacts } from '../api/port-facts.js';
import type { ScanChanges } from '../api/scan-changes.js';
import type { SeverityLevel } from '../api/severity-levels.js';

/** How a severity is shown: its word and its symbol (a shape per level). */
export interface SeverityMark {
  label: string;
  symbol: string;
}

/** The mark of each severity, worst first. */
export const SEVERITY_MARKS: Readonly<Record<SeverityLevel, SeverityMark>> = {
  critical: { label: 'Critical', symbol: '✖' },
  high: { label: 'High', symbol: '▲' },
  medium: { label: 'Medium', symbol: '◆' },
  low: { label: 'Low', symbol: '▽' },
  info: { label: 'Info', symbol: '○' },
};

/** One fact of a port: what it is about, and what was found, in words. */
export interface FactLine {
  term: string;
  text: string;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** A date of Unix seconds as YYYY-MM-DD (UTC): the same on the server and in every browser. */
export function dayOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** When a certificate ends, from its days left: `in 3 days`, `today`, `2 days ago`. */
export function daysFromNow(daysLeft: number): string {
  if (daysLeft === 0) return 'today';
  return daysLeft > 0 ? `in ${plural(daysLeft, 'day')}` : `${plural(-daysLeft, 'day')} ago`;
}

function tlsText(tls: TlsFacts): string {
  const name = tls.subject_cn ?? tls.sans[0] ?? 'no name';
  const ends = `${tls.days_left < 0 ? 'expired' : 'expires'} on ${dayOf(tls.not_after)} (${daysFromNow(tls.days_left)})`;
  const doubts = [
    ...(tls.self_signed ? ['self-signed'] : []),
    ...(tls.trusted ? [] : ['not from a trusted authority']),
    ...(tls.name_matches === false ? [`not valid for ${tls.sni ?? 'this address'}`] : []),
  ];
  return `${tls.version}, certificate for ${name} issued by ${tls.issuer ?? 'an unnamed issuer'}, ${ends}${doubts.length > 0 ? `; ${doubts.join(', ')}` : ''}`;
}

function httpText(http: HttpFacts): string {
  const parts = [`status ${http.status}`];
  if (http.title !== null) parts.push(`title “${http.title}”`);
  if (http.server !== null) parts.push(`server ${http.server}`);
  if (http.location !== null) parts.push(`redirects to ${http.location}`);
  parts.push(http.hsts ? 'HSTS on' : 'no HSTS');
  return parts.join(', ');
}

function sshText(ssh: SshFacts): string {
  return `${ssh.software}${ssh.comment === null ? '' : ` (${ssh.comment})`}, protocol ${ssh.protocol}`;
}

function accessText(access: AccessFacts): string {
  const name = ACCESS_SERVICE_NAMES[access.service];
  const answer = access.auth_required ? `${name} asks for a password` : `${name} answers without a password`;
  return `${answer} (${access.evidence})${access.version === null ? '' : `; version ${access.version}`}`;
}

/** What is known of an open port, one line per probe that learned something; empty for a result without facts. */
export function portFactLines(port: Port): FactLine[] {
  const facts = port.facts;
  if (facts === undefined) return [];
  const lines: FactLine[] = [];
  if (facts.access !== undefined) lines.push({ term: 'Access', text: accessText(facts.access) });
  if (facts.tls !== undefined) lines.push({ term: 'TLS', text: tlsText(facts.tls) });
  if (facts.http !== undefined) lines.push({ term: facts.http.tls ? 'HTTPS' : 'HTTP', text: httpText(facts.http) });
  if (facts.ssh !== undefined) lines.push({ term: 'SSH', text: sshText(facts.ssh) });
  return lines;
}

/** The scan's highest severity when no port is open. */
export const NO_SEVERITY = 'none: no port is open';

/** What changed since the scan that ended at `changes.since`, written by `when` (each renderer its own time zone). */
export function changesWords(changes: ScanChanges, scanName: string, when: (seconds: number) => string): string {
  const since = `Since the ${scanName} of ${when(changes.since)}`;
  if (changes.opened.length === 0 && changes.closed.length === 0 && changes.changed.length === 0) return `${since}: no change.`;
  const list = (ports: readonly number[]): string => (ports.length > 0 ? ports.join(', ') : 'none');
  const changed = changes.changed.map(({ port, what, severity_before, severity_after }) => {
    const kinds = what.map((kind) =>
      kind === 'severity'
        ? `severity ${severity_before === null ? 'not rated' : SEVERITY_MARKS[severity_before].label} → ${severity_after === null ? 'not rated' : SEVERITY_MARKS[severity_after].label}`
        : kind,
    );
    return `${port} (${kinds.join(', ')})`;
  });
  return `${since}: newly open: ${list(changes.opened)}; newly closed: ${list(changes.closed)}${changed.length > 0 ? `; changed: ${changed.join('; ')}` : ''}.`;
}

// `selfscan check --help`: the flags, the exit codes, and where to run it
// (the server scans the address a check comes from).
import { FAST_PORTS, UDP_PORTS } from '../api/scan-ports.js';
import { SEVERITIES } from '../api/severity-levels.js';
import { DEFAULT_TIMEOUT_SECONDS, REPORT_FORMATS } from './check-options.js';

/** The help of `selfscan check` (and of `selfscan-check`, named `command`). */
export function checkHelp(command: string): string {
  return `${command}: scan the address this command runs from with a selfscan server, and check the result against what you expect.

Usage:
  ${command} [--server URL] [--deep | --udp] [--expect-open PORTS]... [--expect-closed PORTS]...
     [--only-open] [--max-severity LEVEL] [--cert-min-days N] [--max-amplification N]
     [--regions all|NAMES [--expect-same-everywhere]]
     [--policy FILE] [--report FORMAT[=PATH]]... [-4 | -6] [--source ADDR]
     [--allow-incomplete] [--wait-rate-limit] [--timeout SECONDS] [--no-progress]

Where to run it: the server scans the public address the check comes FROM. On a
shared CI runner that is the runner's NAT, not your server. Run it on the server
itself: a deploy hook, an ssh step, a self-hosted runner, cron.

Options:
  --server URL              the selfscan server (default: $SELFSCAN_SERVER)
  --deep                    scan all 65535 ports (default: the fast scan's ${FAST_PORTS.length}: ${FAST_PORTS.join(',')})
  --udp                     scan the ${UDP_PORTS.length} UDP services that reflect attacks or leak instead, each
                            sent a harmless request of its protocol; PORTS are then UDP ports among
                            ${UDP_PORTS.join(',')}
  --expect-open PORTS       these ports must be open (PORTS like 22,443,8000-8099; repeatable)
  --expect-closed PORTS     these ports must be closed or filtered (repeatable)
  --only-open               any open port not in --expect-open fails the check
  --max-severity LEVEL      any open port the server judges worse than LEVEL fails the check
                            (LEVEL: ${SEVERITIES.join(', ')}, worst first)
  --cert-min-days N         any open port whose TLS certificate has fewer than N days left
                            (or has expired) fails the check
  --max-amplification N     with --udp: any open UDP port that answered with more than N times
                            the bytes it was sent (an amplifier, N like 2 or 1.5) fails the check
  --regions all|NAMES       scan from several regions of a cluster at once: all of them, or names
                            like NL,FR; the checks above judge the union (open from any region),
                            and the reports show each region's view and the ports seen differently
  --expect-same-everywhere  every region must see each port the same and finish its scan (a port
                            open from NL but filtered from FR fails); needs --regions
  --policy FILE             the same in JSON: {"server", "deep", "udp", "expect_open", "expect_closed",
                            "only_open", "max_severity", "cert_min_days", "max_amplification",
                            "regions", "expect_same_everywhere", "allow_incomplete", "timeout_seconds"};
                            flags override it (a port named by a flag takes the flag's expectation)
  --report FORMAT[=PATH]    ${REPORT_FORMATS.join(', ')}; to PATH or stdout (- or no PATH); repeatable,
                            all from one scan (default: text)
  -4, -6                    connect over IPv4 or IPv6 only (checks that address of the host)
  --source ADDR             connect from this local address (a multi-homed host checks each)
  --allow-incomplete        judge an incomplete scan by what it found open; what it could not
                            decide is reported as skipped
  --wait-rate-limit         when rate limited, wait out Retry-After once (within --timeout)
  --timeout SECONDS         give up after this long (default: fast ${DEFAULT_TIMEOUT_SECONDS.fast}, deep ${DEFAULT_TIMEOUT_SECONDS.deep}, udp ${DEFAULT_TIMEOUT_SECONDS.udp})
  --no-progress             no progress on stderr (it is shown on a terminal, and as a line per
                            quarter when CI is set)
  -h, --help                show this help

Example: the same ports from every region of the cluster, and only SSH and HTTPS open
  ${command} --server https://selfscan.example.org --regions all --expect-same-everywhere \\
     --expect-open 22,443 --only-open

Example: no UDP amplifier, only DNS open on UDP and nothing worse than medium
  ${command} --server https://selfscan.example.org --udp --expect-open 53 --only-open \\
     --max-amplification 2 --max-severity medium

Exit codes:
  0  every check passed
  1  a check failed
  2  could not decide: usage error, server unreachable, HTTP error (a server that is a single
     process or knows no such region answers --regions with 422 invalid_regions), rate limited,
     scan failed, scan incomplete (unless --allow-incomplete), --timeout, a limit asked of a
     server that reports no facts (or no udp facts, for --max-amplification), or --regions asked
     of one that ignores it; an error outranks any finding
`;
}

// Which probes run on an open port, from its number (the IANA and fast-scan
// ports of the services we recognise) and from the banner the sweep read
// (the server's first words, or its answer to `GET / HTTP/1.0`), so a
// service is found on any port and nothing is sent that cannot help.
import type { Port } from '../api/port.js';

/** The probes to run on one open port. */
export interface ProbePlan {
  /** Split the banner as an SSH identification string (no network). */
  ssh: boolean;
  /** A TLS handshake (then `GET /`, and `GET /version` when it answers HTTP). */
  tls: boolean;
  /** A plain-HTTP `GET /` (Elasticsearch is recognised from its answer). */
  http: boolean;
  /** A plain-HTTP `GET /version` (the Docker Engine API; over TLS it follows the TLS probe). */
  docker: boolean;
  redis: boolean;
  memcached: boolean;
  mongodb: boolean;
}

/** Banners of cleartext protocols where the server speaks first (SSH, FTP/SMTP, POP3, IMAP, VNC) or that answered as Redis or Memcached: no TLS there. */
const CLEARTEXT_BANNER =
  /^(?:SSH-|220[ -]|\+OK|\* OK|\* PREAUTH|\* BYE|RFB \d|-ERR|-NOAUTH|-DENIED|-WRONGPASS|\+PONG|ERROR|VERSION \d|CLIENT_ERROR|SERVER_ERROR)/;
const REDIS_BANNER = /^(?:-ERR|-NOAUTH|-DENIED|-WRONGPASS|\+PONG)/;
const MEMCACHED_BANNER = /^(?:ERROR|VERSION \d|CLIENT_ERROR|SERVER_ERROR)/;
/** What mongod answers an HTTP request on its driver port. */
const MONGODB_BANNER = /MongoDB over HTTP/;

/** Ports where an HTTP server is the usual listener, probed even when the sweep read no banner. */
const HTTP_PORTS: ReadonlySet<number> = new Set([80, 81, 591, 2375, 3000, 5000, 8000, 8008, 8080, 8081, 8088, 8888, 9000, 9090, 9200]);
/** dockerd's cleartext port (2376, its TLS port, is the TLS probe's). */
const DOCKER_PORT = 2375;
const REDIS_PORTS: ReadonlySet<number> = new Set([6379]);
const MEMCACHED_PORTS: ReadonlySet<number> = new Set([11211]);
const MONGODB_PORTS: ReadonlySet<number> = new Set([27017, 27018, 27019]);

/** The probes for `port`, by its number and banner. */
export function planProbes(port: Pick<Port, 'port' | 'banner'>): ProbePlan {
  const banner = port.banner ?? '';
  const mongodb = MONGODB_PORTS.has(port.port) || MONGODB_BANNER.test(banner);
  const http = !mongodb && (banner.startsWith('HTTP/') || (banner === '' && HTTP_PORTS.has(port.port)));
  return {
    ssh: banner.startsWith('SSH-'),
    tls: !CLEARTEXT_BANNER.test(banner),
    http,
    docker: http || port.port === DOCKER_PORT,
    redis: REDIS_PORTS.has(port.port) || REDIS_BANNER.test(banner),
    memcached: MEMCACHED_PORTS.has(port.port) || MEMCACHED_BANNER.test(banner),
    mongodb,
  };
}

// HTTP/1.1 requests a probe sends (`GET /`, `GET /version`), on a probe
// connection in clear or over TLS, and the HTTP facts read from the answer.
// Raw bytes both ways: the connection bounds time and bytes.
import { isIPv6 } from 'node:net';
import type { ConnectionOptions } from 'node:tls';

import type { HttpFacts } from '../api/port-facts.js';
import { htmlTitle } from './html-title.js';
import { type HttpResponse, headerValue, parseHttpResponse, responseEndWatcher } from './http-response.js';
import { printableText } from './printable-text.js';
import { ProbeConnection, type ProbeTarget } from './probe-connection.js';
import { ptrHostname } from './ptr-hostname.js';

/** The Host header value: the PTR name (when well-formed), else the address, with the port unless it is the scheme's default. */
export function hostHeader(target: Pick<ProbeTarget, 'ip' | 'port'>, ptr: string | null, tls: boolean): string {
  const name = ptrHostname(ptr) ?? (isIPv6(target.ip) ? `[${target.ip}]` : target.ip);
  return target.port === (tls ? 443 : 80) ? name : `${name}:${target.port}`;
}

/** A GET of `path` that asks the server to close when done. */
function getRequest(path: string, host: string): string {
  return `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: selfscan\r\nAccept: */*\r\nConnection: close\r\n\r\n`;
}

/** Sends `GET path` on `connection` and reads the answer; null when none came that reads as HTTP. */
export async function requestHttp(connection: ProbeConnection, path: string, host: string): Promise<HttpResponse | null> {
  const bytes = await connection.ask(getRequest(path, host), responseEndWatcher());
  return parseHttpResponse(bytes);
}

/** Connects (and starts TLS when `tls` is given), sends `GET path`, closes; null when no HTTP answer came. */
export async function probeHttp(target: ProbeTarget, path: string, host: string, tls: ConnectionOptions | null): Promise<HttpResponse | null> {
  const connection = await ProbeConnection.open(target);
  if (connection === null) return null;
  try {
    if (tls !== null && (await connection.startTls(tls)) === null) return null;
    return await requestHttp(connection, path, host);
  } finally {
    connection.close();
  }
}

/** The HTTP facts of an answer to `GET /`. */
export function httpFacts(response: HttpResponse, tls: boolean): HttpFacts {
  const text = (name: string) => {
    const value = headerValue(response, name);
    return value === null ? null : printableText(value);
  };
  return {
    tls,
    status: response.status,
    server: text('server'),
    title: htmlTitle(response.body.toString('utf8')),
    location: text('location'),
    hsts: headerValue(response, 'strict-transport-security') !== null,
  };
}

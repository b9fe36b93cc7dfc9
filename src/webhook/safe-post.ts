// One webhook delivery attempt that cannot be turned against the service's
// own network: the host is resolved once, every address is held to the
// same range policy as scan targets, and the connection goes to the address
// that was checked (no second lookup, so no DNS rebinding). No redirects
// are followed, the attempt is cut off after a timeout, and at most a few
// KB of the answer are read.
import { lookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';

import { refuseTarget } from '../limits/target-policy.js';
import { normaliseIp } from '../net/ip-address.js';
import { ipLiteralOf } from './callback-url.js';

export type AttemptOutcome =
  | 'delivered' // 2xx
  | 'retry' // network error, timeout, 5xx, 429: worth trying again
  | 'rejected' // the receiver said no (3xx, other 4xx): trying again would not help
  | 'refused'; // we will not connect there (non-public address)

export interface AttemptResult {
  outcome: AttemptOutcome;
  status?: number;
  detail: string;
}

export interface SafePostOptions {
  /** Lets callbacks go to loopback and private addresses (tests, local trials). */
  allowPrivate: boolean;
  timeoutMs: number;
}

const MAX_RESPONSE_BYTES = 4096;

async function addressesOf(hostname: string): Promise<string[]> {
  const literal = ipLiteralOf(hostname);
  if (literal !== null) return [literal];
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => normaliseIp(entry.address));
}

function classify(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 429 || status >= 500) return 'retry';
  return 'rejected';
}

export async function safePost(url: URL, body: string, headers: Record<string, string>, options: SafePostOptions): Promise<AttemptResult> {
  let addresses: string[];
  try {
    addresses = await addressesOf(url.hostname);
  } catch (error) {
    return { outcome: 'retry', detail: `cannot resolve ${url.hostname}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
  const address = addresses.find((candidate) => refuseTarget(candidate, { allowPrivateTargets: options.allowPrivate }) === null);
  if (address === undefined) {
    return { outcome: 'refused', detail: `${url.hostname} resolves only to non-public addresses (${addresses.join(', ')})` };
  }

  const secure = url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = send({
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, Host: url.host, 'Content-Length': String(Buffer.byteLength(body)) },
      // TLS checks the certificate against the name, not the address we dialled.
      servername: isIP(url.hostname.replace(/^\[|\]$/g, '')) ? undefined : url.hostname,
      agent: false,
    });
    const timer = setTimeout(() => finish({ outcome: 'retry', detail: `no answer within ${options.timeoutMs} ms` }), options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ outcome: 'retry', detail: `${error.code ?? error.message} from ${address}` }));
    request.on('response', (response) => {
      let read = 0;
      const done = (): void => {
        const status = response.statusCode ?? 0;
        finish({ outcome: classify(status), status, detail: `HTTP ${status} from ${address}` });
      };
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= MAX_RESPONSE_BYTES) done(); // enough: the status is what counts
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}

// Checks an X-Callback-Url header at the POST, before anything starts, and
// reads the IP literal a callback URL may name: an address the delivery
// policy refuses is refused here already (a 422), not silently at delivery.
import { isIP } from 'node:net';

import { refuseTarget } from '../limits/target-policy.js';
import { normaliseIp } from '../net/ip-address.js';

const MAX_LENGTH = 2048;

/** The address `hostname` (of a URL: IPv6 in brackets) spells, canonical; null for a host name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? normaliseIp(bare) : null;
}

/**
 * Null when `value` is an acceptable callback URL, else why not. A host that
 * is an IP literal must be one webhooks are delivered to: public, unless
 * `allowPrivateCallbacks`. Host names are judged at delivery, when resolved.
 */
export function refuseCallbackUrl(value: string, allowPrivateCallbacks: boolean): string | null {
  if (value.length > MAX_LENGTH) return `X-Callback-Url is longer than ${MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'X-Callback-Url must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'X-Callback-Url must use http or https';
  if (url.username !== '' || url.password !== '') return 'X-Callback-Url must not carry a user name or password';
  if (url.hostname === '') return 'X-Callback-Url must name a host';
  const literal = ipLiteralOf(url.hostname);
  const refused = literal === null ? null : refuseTarget(literal, { allowPrivateTargets: allowPrivateCallbacks });
  return refused === null ? null : `X-Callback-Url: webhooks are not delivered there: ${refused}`;
}

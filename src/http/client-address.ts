// The caller's address, from the connection itself: the scan target. Must
// be read synchronously in the route handler (uWS rule).
import { normaliseIp } from '../native/scan-request.js';
import type { HttpResponse } from './uws.js';

const decoder = new TextDecoder();

/** The peer address in canonical form; IPv4-mapped IPv6 becomes IPv4. */
export function peerAddress(res: HttpResponse): string {
  return normaliseIp(decoder.decode(res.getRemoteAddressAsText()));
}

// What a UDP probe is: the smallest harmless requests a service answers
// (each one a read: nothing on the target is written or changed), sent to
// the service's well-known port, and a reader that turns each reply into
// facts in words. The sweep (udp-sweep.ts) sends the requests and hands
// every reply to `read`; which replies make the port an amplifier, and how
// bad that is, the severity table decides from the readings.

import type { UdpService } from '../../api/udp-services.js';

export { UDP_SERVICES, type UdpService } from '../../api/udp-services.js';

/** One fact of a reply: a version, a flag, a count, a name. */
export type UdpDetail = string | number | boolean | null;

/** What one reply showed. */
export interface UdpReading {
  /** One sentence in words, e.g. `answered a recursive A query for example.com with 1 address`. */
  evidence: string;
  /**
   * Named facts of the reply, snake_case keys, e.g. `{ recursion: true, version: 'dnsmasq-2.89' }`.
   * Keys are stable per service: clients and the severity table read them.
   */
  details: Record<string, UdpDetail>;
}

/** One request of a probe: its bytes, sent as one datagram. */
export interface UdpRequest {
  /** What it asks, in words, e.g. `NTP mode 7 MON_GETLIST_1 (monlist)`. */
  name: string;
  bytes: Uint8Array;
}

/** A service's probe: its port, its requests and the reader of their replies. */
export interface UdpProbe {
  service: UdpService;
  port: number;
  /**
   * The server answers from a port of its own, not the one asked (TFTP
   * answers from a new port per transfer): replies from the target's other
   * ports count as this probe's too.
   */
  answersFromOtherPort?: boolean;
  /** Sent in order, one datagram each; the first is the one every such server answers. */
  requests: readonly UdpRequest[];
  /**
   * The facts of `reply`, a datagram that answered `requests[request]`, or
   * null when it is not this protocol's answer (the port still answered:
   * it is open, with nothing known of it). Never throws on any bytes.
   */
  read(request: number, reply: Uint8Array): UdpReading | null;
}

import type { Config } from '../src/config/config.js';

/** Every rate limit off: tests of other things make many requests from one address. */
export const NO_LIMITS: Config['limits'] = {
  edge: { max: 0, windowSeconds: 60 },
  fastPerAsn: { max: 0, windowSeconds: 3600 },
  deepPerIp: { max: 0, windowSeconds: 300 },
  deepPerAsn: { max: 0, windowSeconds: 3600 },
  udpPerIp: { max: 0, windowSeconds: 60 },
  udpPerAsn: { max: 0, windowSeconds: 3600 },
  webhooksPerIp: { max: 0, windowSeconds: 3600 },
  ipv6PrefixLength: 64,
};

/**
 * Reverse DNS for test servers: a loopback port where nothing listens, so a
 * PTR lookup fails at once (ptr_record null) and never leaves the machine
 * for the system's resolver.
 */
export const LOOPBACK_DNS = { servers: ['127.0.0.1:9'], timeoutMs: 500 };

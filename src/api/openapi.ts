// The OpenAPI 3.1 description of the HTTP interface (interface version
// 1.3.0: 1.0.0 plus optional exposure fields, multi-region scans and the udp scan), served at GET /openapi.json and used by the tests to check every
// response the server sends. Its schemas are generated from the zod
// schemas; the paths, operations and prose are written here and beside it.
import { components } from './openapi-components.js';
import { pagePaths } from './openapi-page-paths.js';
import { paths, webhooks } from './openapi-paths.js';
import { SCAN_PROFILES } from './scan-type.js';

/** The OpenAPI 3.1.0 document of the service (interface version 1.3.0, a superset of 1.0.0). */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'selfscan',
    version: '1.3.0',
    summary: 'Tells a server which of its TCP ports the outside world can reach.',
    description: [
      'The scan target is always the public address the request comes from, taken from the connection. ' +
        'No parameter, header or body selects another target. IPv4 and IPv6 are supported; ' +
        'IPv4-mapped IPv6 addresses are scanned as IPv4.',
      `\`fast\` covers ${SCAN_PROFILES.fast.ports.length} common TCP ports, \`deep\` all ` +
        `${SCAN_PROFILES.deep.ports.length}; port 25 is in every TCP scan. \`udp\` (since 1.3.0) checks ` +
        `${SCAN_PROFILES.udp.ports.length} UDP services.`,
      'Polling (v1): POST starts a scan, GET polls it. Streaming (v2): one GET starts or attaches to a scan ' +
        'and streams its progress as Server-Sent Events.',
      'Requests for the same address and scan type while a scan is in flight coalesce onto that scan. ' +
        'Results expire 24 hours after completion. An `incomplete` result (`partial: true`) holds what was ' +
        'found before the host proved too slow or too filtered; it is never a full scan.',
      'Since 1.1.0, a finished scan also says what it learned of each open port (`facts`: TLS certificate, HTTP ' +
        'answer, SSH version, a data store or control API that answers without credentials) and how risky it is ' +
        "(`risk`, and the scan's highest `severity`), and what changed since the last scan of the address (`changes`). " +
        'These fields are optional and additive: nothing a 1.0.0 client reads has changed. Probes are read-only and ' +
        'never log in.',
      'Since 1.2.0, a cluster deployment can scan the caller from several regions at once: `regions=all` (every ' +
        'region with a live scanner node) or `regions=NL,FR` on POST and GET of v1 and on v2. The target is still ' +
        'only the caller: a region is where the scan looks from. The result keeps the union in `ports_open` and ' +
        '`ports_filtered` and adds `regions`, each region’s own view (`vantages`) and the ports seen differently ' +
        '(`differences`). Each region counts as one scan against the scan limits. An unknown region, or any ' +
        '`regions` on a single-process server, is a 422 `invalid_regions`.',
      'Since 1.3.0, a third scan type, `udp` (POST and GET /v1/udp, GET /v2/udp, MCP tool `udp_scan`), asks whether ' +
        'the caller answers as a reflector or leak on UDP: DNS (an open resolver), NTP (mode 6/7), SNMP, memcached, ' +
        'SSDP, chargen and more, each sent the smallest harmless request of its protocol. `ports_open` lists the ports ' +
        'that answered, each with `facts.udp` (bytes sent and received, `amplification`, what it said) and `risk`; ' +
        '`ports_filtered` those that never answered (open or filtered: UDP cannot tell); a port that answered ICMP port ' +
        'unreachable is closed and not listed. Its rate limits are its own. Nothing a 1.0.0 client reads has changed.',
      'No authentication. Every response carries the X-RateLimit-* headers of the per-IP edge limit (or, on a ' +
        '429, of the limit that refused); a refused request is a 429 with Retry-After. An operator who turns ' +
        'the edge limit off (max 0) gets responses without them. Every error is a JSON Error object.',
      'JSON responses may be gzip-compressed (`Content-Encoding: gzip`) when the request sends ' + '`Accept-Encoding: gzip`.',
      'HEAD is answered wherever GET is, with the status and headers of GET and no body (HEAD of a v2 stream ' +
        "answers a stream's headers and starts no scan); a 405's Allow header names HEAD beside GET.",
    ].join('\n\n'),
    license: { name: 'MIT', identifier: 'MIT' },
  },
  // Wherever the service runs: the document is served by the service it describes.
  servers: [{ url: '/', description: 'The service that serves this document.' }],
  // No authentication, no key, no signup (spec 5).
  security: [],
  tags: [
    { name: 'polling', description: 'v1: start with POST, poll with GET.' },
    { name: 'streaming', description: 'v2: one GET streams the scan as Server-Sent Events.' },
    { name: 'agents', description: 'The Model Context Protocol endpoint for AI agents.' },
    { name: 'meta', description: 'This description and the webhook signing key.' },
    { name: 'page', description: 'The web page for people: HTML, its assets, and its no-JavaScript scan pages.' },
  ],
  paths: { ...paths, ...pagePaths },
  webhooks,
  components,
};

/** `openApiDocument` as served at GET /openapi.json. */
export const openApiJson: string = JSON.stringify(openApiDocument);

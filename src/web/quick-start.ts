// GET / for a client that does not want HTML (curl): what the service does
// and how to use it from a shell, with the caller's address and this
// server's own origin filled in.

/** Whether an Accept header asks for HTML (a browser's does; curl's `*\/*` does not). */
export function wantsHtml(accept: string): boolean {
  return /(^|,)\s*(text\/html|application\/xhtml\+xml)\s*(;|,|$)/i.test(accept);
}

/** The origin a client reached, from its Host header; a host that is not one becomes `localhost`. */
export function originOf(host: string, scheme: 'http' | 'https' = 'http'): string {
  return /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `${scheme}://${host}` : `${scheme}://localhost`;
}

export function quickStart(ip: string, origin: string): string {
  return `selfscan: which of your TCP ports can the world reach?

Your address as this server sees it: ${ip}
A scan scans this address only (the one your request comes from), rate-limited: TCP, or UDP when you ask for the UDP scan.

Fast scan (32 common ports), polling:
  curl -X POST ${origin}/v1/fast
  curl ${origin}/v1/fast

Deep scan (all 65,535 ports), streamed as Server-Sent Events:
  curl -N ${origin}/v2/deep

UDP scan (20 UDP services that amplify attacks or leak), streamed:
  curl -N ${origin}/v2/udp

The API: ${origin}/openapi.json
MCP (tools fast_scan, deep_scan, udp_scan): ${origin}/mcp
In a browser: ${origin}/
`;
}

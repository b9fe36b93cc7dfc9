// An MCP client (the official SDK's, over Streamable HTTP) whose requests
// come from a chosen loopback address, which is then the caller and the
// scan target.
import { Client, type ClientOptions, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { callerFetch } from './callers.js';

/** `fetch` for the SDK's transport, leaving from `localAddress`. */
export function mcpFetch(localAddress: string): FetchLike {
  const fetch = callerFetch(localAddress);
  // undici's fetch and the global one are the same at run time; only their declared types differ.
  return (url, init) => fetch(String(url), init as Parameters<typeof fetch>[1]) as unknown as Promise<Response>;
}

/** A client connected (initialize done) to `${baseUrl}/mcp` from `localAddress`. */
export async function connectMcp(baseUrl: string, localAddress: string, options: ClientOptions = {}): Promise<Client> {
  const client = new Client({ name: 'selfscan-test', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { fetch: mcpFetch(localAddress) }));
  return client;
}

// The MCP traffic most clients send (2025-era stateless Streamable HTTP: one
// well-formed JSON-RPC request or notification per POST, no progress token)
// answered without the SDK's web-standard handler. That handler builds, per
// request, a Web Request and Response, a server with its tools, a transport
// and an event stream for one message; here the SDK's McpServer does the
// protocol as ever, but its instances are kept, each connected to an
// in-process transport and serving one exchange at a time, and the answer is
// plain JSON (Streamable HTTP lets the server answer a POST in JSON; only a
// call with a progress token has anything to send before its result).
// Anything else (batches, other eras, malformed messages, progress) is left
// to the SDK's handler, which answers it as the SDK does.
import {
  type AuthInfo,
  classifyInboundRequest,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from '@modelcontextprotocol/server';

import type { PlainAnswer } from '../http/fetch-bridge.js';

/** Idle servers kept for the next exchanges; more are made under a burst and dropped after it. */
const MAX_IDLE_SERVERS = 64;

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** One exchange's way into a kept server: the request goes in, its response comes out. */
class ExchangeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private answer: ((message: JSONRPCMessage) => void) | undefined;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.onclose?.();
  }

  /** Responses go to the exchange waiting for one; notifications to a call that asked for no progress are dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!('result' in message) && !('error' in message)) return;
    const answer = this.answer;
    this.answer = undefined;
    answer?.(message);
  }

  request(message: JSONRPCRequest, authInfo: AuthInfo): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.answer = resolve;
      this.onmessage?.(message, { authInfo });
    });
  }

  notify(message: JSONRPCNotification, authInfo: AuthInfo): void {
    this.onmessage?.(message, { authInfo });
  }
}

interface KeptServer {
  server: McpServer;
  transport: ExchangeTransport;
}

/** The body as JSON, or undefined when it is not JSON. */
function parsedJson(body: Uint8Array<ArrayBuffer>): unknown {
  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Whether the SDK's handler would serve this request as 2025-era traffic. */
function isLegacy(httpMethod: string, headers: Headers, body?: unknown): boolean {
  const header = (name: string): string | undefined => headers.get(name) ?? undefined;
  const route = classifyInboundRequest({
    httpMethod,
    body,
    protocolVersionHeader: header('mcp-protocol-version'),
    mcpMethodHeader: header('mcp-method'),
    mcpNameHeader: header('mcp-name'),
  });
  return route.kind === 'legacy';
}

/** The message of a POST answered here, or null to leave the request to the SDK's handler. */
function directMessage(headers: Headers, parsedBody: unknown): JSONRPCRequest | JSONRPCNotification | null {
  if (!isJsonContentType(headers.get('content-type'))) return null;
  const accept = headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return null;
  const version = headers.get('mcp-protocol-version');
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  if (!isJSONRPCRequest(parsedBody) && !isJSONRPCNotification(parsedBody)) return null;
  if (parsedBody.params?._meta?.progressToken !== undefined) return null;
  return isLegacy('POST', headers, parsedBody) ? parsedBody : null;
}

/** The SDK's answer to a 2025-era GET or DELETE: stateless serving has no session to stream or end. */
const NO_SESSION: PlainAnswer = {
  status: 405,
  headers: { ...JSON_TYPE, Allow: 'POST' },
  body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }),
};

/** Serves directMessage's messages with servers from `createServer`, each kept for the next exchange. */
export class DirectCalls {
  private readonly idle: KeptServer[] = [];

  constructor(private readonly createServer: () => McpServer) {}

  /** The answer to a request with `method`, `headers` and `body` from the caller `authInfo`, or undefined to leave it to the SDK's handler. */
  async answer(method: string, headers: Headers, body: Uint8Array<ArrayBuffer>, authInfo: AuthInfo): Promise<PlainAnswer | undefined> {
    if (method === 'GET' || method === 'DELETE') return isLegacy(method, headers) ? NO_SESSION : undefined;
    if (method !== 'POST') return undefined;
    const message = directMessage(headers, parsedJson(body));
    return message === null ? undefined : this.serve(message, authInfo);
  }

  private async serve(message: JSONRPCRequest | JSONRPCNotification, authInfo: AuthInfo): Promise<PlainAnswer> {
    const kept = this.idle.pop() ?? (await this.keep());
    try {
      if (!('id' in message)) {
        kept.transport.notify(message, authInfo);
        return { status: 202, headers: {}, body: null };
      }
      const response = await kept.transport.request(message, authInfo);
      return { status: 200, headers: JSON_TYPE, body: JSON.stringify(response) };
    } finally {
      if (this.idle.length < MAX_IDLE_SERVERS) this.idle.push(kept);
    }
  }

  private async keep(): Promise<KeptServer> {
    const server = this.createServer();
    const transport = new ExchangeTransport();
    await server.connect(transport);
    return { server, transport };
  }
}

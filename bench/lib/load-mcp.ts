// A lean MCP client for bench/load/load.ts, over the caller's one keep-alive
// connection (load-http.ts). It sends what the official SDK's client sends
// over Streamable HTTP (checked against it by test/unit/load-mcp-client.test.ts):
// connect is POST initialize, POST notifications/initialized and the GET
// that asks for a server stream; a tool call is one POST tools/call. The
// answer may be JSON or an event stream. The SDK's client over undici costs
// the harness more CPU per call than the server spends answering it, which
// on a machine shared with the server would be measured as the server's
// latency.
import { SseParser } from '../../src/api/sse-parser.js';
import type { CallerConnection, HttpResponse } from './load-http.js';

/** A tool call's result, as far as the load harness reads it. */
export interface ToolResult {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface JsonRpcAnswer {
  jsonrpc?: unknown;
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

const ACCEPT = 'application/json, text/event-stream';

/** The data of each event of a whole event-stream body. */
function eventData(body: string): string[] {
  const data: string[] = [];
  const parser = new SseParser((event) => data.push(event.data));
  parser.push(body);
  parser.end();
  return data;
}

/** The JSON-RPC message answering request `id` in `response`: its JSON body, or the event of its stream that carries it. */
export function answerTo(id: number, response: HttpResponse): JsonRpcAnswer {
  const contentType = response.headers.get('content-type') ?? '';
  const candidates = /^text\/event-stream\b/i.test(contentType) ? eventData(response.body) : [response.body];
  for (const text of candidates) {
    let message: JsonRpcAnswer;
    try {
      message = JSON.parse(text) as JsonRpcAnswer;
    } catch {
      continue;
    }
    if (message.jsonrpc === '2.0' && message.id === id) return message;
  }
  throw new Error(`no JSON-RPC answer to request ${id} in a ${response.status} ${contentType || 'untyped'} answer: ${response.body.slice(0, 120)}`);
}

export class LeanMcpClient {
  private nextId = 0;
  private protocolVersion: string | null = null;

  constructor(
    private readonly conn: CallerConnection,
    private readonly path = '/mcp',
  ) {}

  /** The SDK client's connect: initialize, the initialized notification, then the GET for a server stream (405 from a stateless server). */
  async connect(timeoutMs: number): Promise<void> {
    const init = (await this.request(
      'initialize',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'selfscan-load', version: '1.0.0' } },
      timeoutMs,
    )) as {
      protocolVersion?: unknown;
    };
    if (typeof init.protocolVersion !== 'string') throw new Error('initialize answered no protocolVersion');
    this.protocolVersion = init.protocolVersion;
    const notified = await this.post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), timeoutMs);
    if (notified.status !== 202) throw new Error(`notifications/initialized answered ${notified.status}`);
    const stream = await this.conn.request('GET', this.path, {
      headers: { accept: 'text/event-stream', 'mcp-protocol-version': init.protocolVersion },
      timeoutMs,
    });
    if (stream.status !== 405) throw new Error(`GET ${this.path} answered ${stream.status}, not 405`);
  }

  async callTool(name: string, args: Record<string, unknown>, timeoutMs: number): Promise<ToolResult> {
    return (await this.request('tools/call', { name, arguments: args }, timeoutMs)) as ToolResult;
  }

  private async request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    const id = this.nextId++;
    const response = await this.post(JSON.stringify({ method, params, jsonrpc: '2.0', id }), timeoutMs);
    const answer = answerTo(id, response);
    if (answer.error !== undefined) throw new Error(`${method} failed: ${String(answer.error.code)} ${String(answer.error.message)}`);
    if (response.status !== 200 || typeof answer.result !== 'object' || answer.result === null)
      throw new Error(`${method} answered ${response.status} without a result`);
    return answer.result;
  }

  private post(body: string, timeoutMs: number): Promise<HttpResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: ACCEPT };
    if (this.protocolVersion !== null) headers['mcp-protocol-version'] = this.protocolVersion;
    return this.conn.request('POST', this.path, { headers, body, timeoutMs });
  }
}

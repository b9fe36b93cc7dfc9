// The load harness's lean MCP client (bench/lib/load-mcp.ts) sends what the
// official SDK's client sends, request for request, so the load it puts on
// the server is the SDK client's: both against one recording server on
// loopback, answering as a stateless Streamable HTTP server does.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { CallerConnection } from '../../bench/lib/load-http.js';
import { answerTo, LeanMcpClient } from '../../bench/lib/load-mcp.js';

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** The parts of a request that make it what it is to the server. */
function seen(request: IncomingMessage, text: string): Seen {
  const body = text === '' ? undefined : (JSON.parse(text) as { params?: { clientInfo?: unknown } });
  if (body?.params?.clientInfo !== undefined) body.params.clientInfo = 'any'; // each client names itself
  const header = (name: string): string | undefined => request.headers[name] as string | undefined;
  return {
    method: request.method!,
    path: request.url!,
    headers: { accept: header('accept'), 'content-type': header('content-type'), 'mcp-protocol-version': header('mcp-protocol-version') },
    body,
  };
}

describe('the load harness MCP client', () => {
  let server: Server;
  let port: number;
  let requests: Seen[] = [];
  let answerAsStream = false;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        requests.push(seen(request, text));
        if (request.method !== 'POST') {
          response
            .writeHead(405, { 'content-type': 'application/json', allow: 'POST' })
            .end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}');
          return;
        }
        const message = JSON.parse(text) as { id?: number; method: string; params: { protocolVersion?: string } };
        if (message.id === undefined) return void response.writeHead(202).end();
        const result =
          message.method === 'initialize'
            ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'recorder', version: '1' } }
            : { content: [{ type: 'text', text: '{"status":"complete"}' }], structuredContent: { status: 'complete' } };
        const answer = JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
        if (answerAsStream) response.writeHead(200, { 'content-type': 'text/event-stream' }).end(`event: message\nid: 1\ndata: ${answer}\n\n`);
        else response.writeHead(200, { 'content-type': 'application/json' }).end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function sdkRequests(): Promise<Seen[]> {
    requests = [];
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    await client.callTool({ name: 'fast_scan', arguments: {} });
    await client.close();
    return requests;
  }

  async function leanRequests(): Promise<{ requests: Seen[]; result: unknown }> {
    requests = [];
    const conn = new CallerConnection(port, '127.0.0.1');
    try {
      const client = new LeanMcpClient(conn);
      await client.connect(5_000);
      const result = await client.callTool('fast_scan', {}, 5_000);
      return { requests, result };
    } finally {
      conn.close();
    }
  }

  it('connects and calls a tool with the requests the SDK client sends, answered in JSON or as a stream', async () => {
    for (const stream of [false, true]) {
      answerAsStream = stream;
      const sdk = await sdkRequests();
      const lean = await leanRequests();
      expect(sdk.map((r) => `${r.method} ${(r.body as { method?: string } | undefined)?.method ?? ''}`)).toEqual([
        'POST initialize',
        'POST notifications/initialized',
        'GET ',
        'POST tools/call',
      ]);
      expect(lean.requests).toEqual(sdk);
      expect(lean.result).toEqual({ content: [{ type: 'text', text: '{"status":"complete"}' }], structuredContent: { status: 'complete' } });
    }
  });

  it('reads the answer to its own request id only, and says what it got otherwise', () => {
    const response = (contentType: string, body: string) => ({ status: 200, headers: new Map([['content-type', contentType]]), body });
    const stream =
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":3,"result":{"ok":true}}\n\n';
    expect(answerTo(3, response('text/event-stream', stream))).toMatchObject({ id: 3, result: { ok: true } });
    expect(answerTo(3, response('application/json', '{"jsonrpc":"2.0","id":3,"error":{"code":-32601}}'))).toMatchObject({ error: { code: -32601 } });
    expect(() => answerTo(4, response('application/json', '{"jsonrpc":"2.0","id":3,"result":{}}'))).toThrow(/no JSON-RPC answer to request 4/);
  });
});

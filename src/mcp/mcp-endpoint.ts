// POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (no
// Mcp-Session-Id; the caller's address and the tool name are the handle),
// served by the official SDK: the common calls by its McpServer directly
// (direct-calls.ts), the rest by its web-standard handler through the fetch bridge.
// GET and DELETE answer 405, as stateless serving has no session to stream
// or end. The edge limit, caller resolution and request log of every route
// apply here too.
import { createMcpHandler } from '@modelcontextprotocol/server';

import { RequestBody, readRequestHead, serveFetch } from '../http/fetch-bridge.js';
import type { RouteContext } from '../http/route-context.js';
import type { Route } from '../http/routes.js';
import { DirectCalls } from './direct-calls.js';
import { callerIdentity } from './mcp-caller.js';
import { createScanServer } from './scan-tools.js';

/** The largest JSON-RPC message read; a tool call is a few hundred bytes. */
const MAX_MCP_BODY_BYTES = 1024 * 1024;

/** A JSON-RPC error answer, shaped as the SDK shapes its own (id null: the request was not read). */
function jsonRpcError(status: 405 | 413, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status, ...(status === 405 && { headers: { Allow: 'POST' } }) });
}

/** Serves the MCP endpoint (tools fast_scan, deep_scan and udp_scan) at `path`. */
function registerMcp(context: RouteContext, path: string): void {
  // Made once: the tools read their caller from each request (mcp-caller.ts).
  const mcp = createMcpHandler(() => createScanServer(context), { maxRequestBodySize: MAX_MCP_BODY_BYTES });
  const direct = new DirectCalls(() => createScanServer(context));
  context.app.any(path, (res, req) => {
    // uWS lends req and the body only during this callback: the head is copied
    // and the body reader attached before it returns (handle() registers
    // onAborted just as synchronously); the handler runs after an await.
    const head = readRequestHead(req);
    const body = new RequestBody(res, MAX_MCP_BODY_BYTES);
    context.handle(res, req, head.method, path, (exchange, ip, headers) => {
      const authInfo = callerIdentity(ip);
      return serveFetch(exchange, head, body, (request) => mcp.fetch(request, { authInfo }), {
        maxBodyBytes: MAX_MCP_BODY_BYTES,
        reject: jsonRpcError,
        headers,
        answerDirectly: (bytes) => direct.answer(head.method, head.headers, bytes, authInfo),
      });
    });
  });
}

/** The MCP endpoint as a route the HTTP app mounts (at /mcp): it answers other methods itself, with a JSON-RPC 405. */
export const mcpRoute: Route = { methods: ['POST'], register: registerMcp, answersOtherMethods: true };

// POST /mcp: the Model Context Protocol over Streamable HTTP, stateless (no
// Mcp-Session-Id; the caller's address and the tool name are the handle),
// served by the official SDK's web-standard handler through the uWS bridge.
// GET and DELETE answer 405, as stateless serving has no session to stream
// or end. The edge limit, caller resolution and request log of every route
// apply here too.
import { createMcpHandler } from '@modelcontextprotocol/server';

import type { RouteContext } from '../http/route-context.js';
import { createScanServer } from './scan-tools.js';
import { readRequestHead, RequestBody, serveFetch } from './uws-fetch-bridge.js';

const MCP_PATH = '/mcp';
/** The largest JSON-RPC message read; a tool call is a few hundred bytes. */
const MAX_MCP_BODY_BYTES = 1024 * 1024;

/** A JSON-RPC error answer, shaped as the SDK shapes its own (id null: the request was not read). */
function jsonRpcError(status: 405 | 413, message: string): Response {
  return Response.json(
    { jsonrpc: '2.0', error: { code: -32000, message }, id: null },
    { status, ...(status === 405 && { headers: { Allow: 'POST' } }) },
  );
}

/** Serves the MCP endpoint (tools fast_scan and deep_scan) at /mcp. */
export function registerMcp(context: RouteContext): void {
  context.app.any(MCP_PATH, (res, req) => {
    // uWS lends req and the body only during this callback: the head is copied
    // and the body reader attached before it returns (handle() registers
    // onAborted just as synchronously); the handler runs after an await.
    const head = readRequestHead(req);
    const body = new RequestBody(res, MAX_MCP_BODY_BYTES);
    context.handle(res, req, head.method, MCP_PATH, (exchange, ip, headers) => {
      // The tools are bound to this caller, so each request gets its own handler and server.
      const mcp = createMcpHandler(() => createScanServer(context, ip), { maxRequestBodySize: MAX_MCP_BODY_BYTES });
      return serveFetch(exchange, head, body, (request) => mcp.fetch(request), {
        maxBodyBytes: MAX_MCP_BODY_BYTES,
        reject: jsonRpcError,
        headers,
      });
    });
  });
}

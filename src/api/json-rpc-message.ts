// What POST /mcp exchanges, as far as the HTTP document describes it: a
// JSON-RPC 2.0 message (the MCP SDK checks the rest).
import * as z from 'zod';

/** A JSON-RPC 2.0 request, notification or response (MCP), or an error response. */
export const JsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.int(), z.null()]).optional(),
    method: z.string().optional(),
    params: z.looseObject({}).optional(),
    result: z.looseObject({}).optional(),
    error: z.looseObject({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ description: 'A JSON-RPC 2.0 request, notification or response (MCP), or an error response.' });
export type JsonRpcMessage = z.output<typeof JsonRpcMessage>;

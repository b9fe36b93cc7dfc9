// The caller an MCP request comes from (its address, as the route resolved
// it), carried to the tools as the request's authInfo: the SDK passes that
// through its handler, its factory and every transport to a tool's context,
// so one server instance can serve any caller.
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';

/** The identity of a request from `ip`. */
export const callerIdentity = (ip: string): AuthInfo => ({ token: '', clientId: ip, scopes: [], extra: { caller: ip } });

/** The caller of the request a tool serves; throws if the request came without one. */
export function callerOf(ctx: ServerContext): string {
  const caller = ctx.http?.authInfo?.extra?.caller;
  if (typeof caller !== 'string') throw new Error('MCP request without its caller');
  return caller;
}

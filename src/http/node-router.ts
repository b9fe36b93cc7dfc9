// The seam's router for the node:http front, matching as uWS does: an exact
// path before a pattern with `:name` segments before a `/*` wildcard (the
// longer prefix first), and within a pattern the handler of the request's
// method before `any`; a pattern with neither passes the request on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import { ApiError } from '../api/api-error.js';
import { bytesAsText } from './node-recognized-text.js';
import { NodeRequest } from './node-request.js';
import { NodeResponse } from './node-response.js';
import type { HttpRouter, RecognizedString, RouteHandler } from './seam.js';

/** Handlers of one pattern, by lower-case method, and the one for any method. */
interface MethodTable {
  byMethod: Map<string, RouteHandler>;
  any?: RouteHandler;
}

interface ParamPattern {
  segments: readonly string[];
  table: MethodTable;
}

interface Wildcard {
  prefix: string;
  table: MethodTable;
}

const NO_PARAMETERS: readonly string[] = [];

export class NodeRouter implements HttpRouter {
  private readonly exact = new Map<string, MethodTable>();
  private readonly params: ParamPattern[] = [];
  private readonly wildcards: Wildcard[] = [];

  get = (pattern: RecognizedString, handler: RouteHandler) => this.add('get', pattern, handler);
  post = (pattern: RecognizedString, handler: RouteHandler) => this.add('post', pattern, handler);
  head = (pattern: RecognizedString, handler: RouteHandler) => this.add('head', pattern, handler);
  options = (pattern: RecognizedString, handler: RouteHandler) => this.add('options', pattern, handler);
  put = (pattern: RecognizedString, handler: RouteHandler) => this.add('put', pattern, handler);
  del = (pattern: RecognizedString, handler: RouteHandler) => this.add('delete', pattern, handler);
  patch = (pattern: RecognizedString, handler: RouteHandler) => this.add('patch', pattern, handler);
  trace = (pattern: RecognizedString, handler: RouteHandler) => this.add('trace', pattern, handler);
  connect = (pattern: RecognizedString, handler: RouteHandler) => this.add('connect', pattern, handler);
  any = (pattern: RecognizedString, handler: RouteHandler) => this.add('*', pattern, handler);

  private add(method: string, rawPattern: RecognizedString, handler: RouteHandler): this {
    const table = this.tableOf(bytesAsText(rawPattern));
    if (method === '*') table.any = handler;
    else table.byMethod.set(method, handler);
    return this;
  }

  private tableOf(pattern: string): MethodTable {
    if (pattern.endsWith('/*')) {
      const prefix = pattern.slice(0, -1);
      let wildcard = this.wildcards.find((entry) => entry.prefix === prefix);
      if (wildcard === undefined) {
        this.wildcards.push((wildcard = { prefix, table: { byMethod: new Map() } }));
        this.wildcards.sort((a, b) => b.prefix.length - a.prefix.length);
      }
      return wildcard.table;
    }
    if (pattern.includes('/:')) {
      const segments = pattern.split('/');
      let param = this.params.find((entry) => entry.segments.join('/') === pattern);
      if (param === undefined) this.params.push((param = { segments, table: { byMethod: new Map() } }));
      return param.table;
    }
    let table = this.exact.get(pattern);
    if (table === undefined) this.exact.set(pattern, (table = { byMethod: new Map() }));
    return table;
  }

  /** Serves one request; a request no pattern takes is answered 404 (every app registers `/*`, so this does not happen). */
  dispatch(message: IncomingMessage, response: ServerResponse, socket: Socket): void {
    const method = (message.method ?? 'GET').toLowerCase();
    const url = originForm(message);
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    let parameters = NO_PARAMETERS;
    let handler = pick(this.exact.get(path), method);
    if (handler === undefined) {
      const segments = path.split('/');
      for (const param of this.params) {
        const values = matchSegments(param.segments, segments);
        if (values === null) continue;
        handler = pick(param.table, method);
        if (handler !== undefined) {
          parameters = values;
          break;
        }
      }
    }
    if (handler === undefined) {
      for (const wildcard of this.wildcards) {
        if (!path.startsWith(wildcard.prefix)) continue;
        handler = pick(wildcard.table, method);
        if (handler !== undefined) break;
      }
    }
    if (handler === undefined) {
      // Every app registers `/*`: only a target outside it (`*`) comes here.
      const body = JSON.stringify(new ApiError('not_found', `no such endpoint: ${url}`).body);
      response.writeHead(404, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(body);
      return;
    }
    const res = new NodeResponse(response, socket);
    try {
      void handler(res, new NodeRequest(message, path, mark === -1 ? undefined : url.slice(mark + 1), parameters));
    } catch {
      socket.destroy(); // as uWS would: a handler that throws leaves nothing to answer with
    }
  }
}

/**
 * The request target in origin form (`/path?query`): RFC 9112 §3.2.2 has a
 * server accept the absolute form (`http://host/path`) too. Written back to
 * the request, which the route reads.
 */
function originForm(message: IncomingMessage): string {
  const url = message.url ?? '/';
  if (url.startsWith('/') || !URL.canParse(url)) return url;
  const { pathname, search } = new URL(url);
  return (message.url = pathname + search);
}

function pick(table: MethodTable | undefined, method: string): RouteHandler | undefined {
  return table === undefined ? undefined : (table.byMethod.get(method) ?? table.any);
}

/** The values of the pattern's `:name` segments in `segments`, or null when the path does not match. */
function matchSegments(pattern: readonly string[], segments: readonly string[]): string[] | null {
  if (pattern.length !== segments.length) return null;
  const values: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const part = pattern[i]!;
    if (part.startsWith(':')) values.push(segments[i]!);
    else if (part !== segments[i]) return null;
  }
  return values;
}

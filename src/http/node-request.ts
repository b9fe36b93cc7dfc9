// A node:http request as the seam's HttpRequest: what uWS's HttpRequest
// answers, read from Node's parsed request. Made once per request, read in
// its route callback.
import type { IncomingMessage } from 'node:http';

import { bytesAsText } from './node-recognized-text.js';
import type { HttpRequest, RecognizedString } from './seam.js';

export class NodeRequest implements HttpRequest {
  private params: URLSearchParams | undefined;

  /** `path` and `query` are the target's, split by the router. */
  constructor(
    readonly message: IncomingMessage,
    private readonly path: string,
    private readonly query: string | undefined,
    /** The route pattern's parameters, in order. */
    private readonly parameters: readonly string[],
  ) {}

  getHeader(name: RecognizedString): string {
    const value = this.message.headers[bytesAsText(name)];
    if (value === undefined) return '';
    return typeof value === 'string' ? value : (value[0] ?? '');
  }

  getMethod(): string {
    return (this.message.method ?? 'GET').toLowerCase();
  }

  getUrl(): string {
    return this.path;
  }

  getQuery(key?: RecognizedString): string | undefined {
    if (key === undefined) return this.query;
    if (this.query === undefined) return undefined;
    this.params ??= new URLSearchParams(this.query);
    return this.params.get(bytesAsText(key)) ?? undefined;
  }

  getParameter(index: number): string | undefined {
    return this.parameters[index];
  }

  forEach(visit: (name: string, value: string) => void): void {
    const raw = this.message.rawHeaders;
    for (let at = 0; at < raw.length; at += 2) visit(raw[at]!.toLowerCase(), raw[at + 1]!);
  }
}

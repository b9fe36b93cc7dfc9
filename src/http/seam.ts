// The one HTTP seam: what routes, request checks, limits, SSE, the page and
// MCP see of a request, a response and the router they register on. It is
// the part of uWebSockets.js's interface the code uses, so uWS's own objects
// are its adapter at no cost per request (src/http/uws-front.ts); Node's own
// `node:http` is the other (src/http/node-front.ts and its node-*.ts). A
// front (http-front.ts) turns a router into a listening HttpApp.
/** A string, or its UTF-8 bytes (uWS reads bytes without converting them). */
export type RecognizedString = string | ArrayBuffer | Uint8Array;

/** A request, readable only synchronously within its route callback. */
export interface HttpRequest {
  /** Header `name` (lower case): its first line, or '' when absent. */
  getHeader(name: RecognizedString): string;
  /** The method, lower case. */
  getMethod(): string;
  /** The path, without the query string. */
  getUrl(): string;
  /** The query string without `?` (undefined or '' when none); with `key`, that parameter decoded, or undefined. */
  getQuery(): string | undefined;
  getQuery(key: string): string | undefined;
  /** The route pattern's parameter `index` (`/assets/:file`). */
  getParameter(index: number): string | undefined;
  /** Every header line, names lower case, in the order received. */
  forEach(visit: (name: string, value: string) => void): void;
}

/**
 * A response. Writes made outside the route callback go within cork();
 * after end (or endWithoutBody) it may not be touched; a response kept past
 * its callback must register onAborted first.
 */
export interface HttpResponse {
  /** The status line after `HTTP/1.1 ` (`200 OK`); it may carry fixed header lines after it (`\r\nName: value`, see HeaderBlock). */
  writeStatus(status: RecognizedString): HttpResponse;
  writeHeader(name: RecognizedString, value: RecognizedString): HttpResponse;
  /** Writes a piece of a streamed body; false when the socket pushed back (the rest is kept and sent as it drains). */
  write(chunk: RecognizedString): boolean;
  /** Ends the response with `body` (sized by Content-Length), closing the connection after it when asked. */
  end(body?: RecognizedString, closeConnection?: boolean): HttpResponse;
  /** Ends the response without a body: a HEAD answer or a 304, its Content-Length written by the caller. */
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): HttpResponse;
  /** Runs `write` with the connection's writes batched into one send. */
  cork(write: () => void): HttpResponse;
  /** Runs `handler` if the client goes away before the response ends. */
  onAborted(handler: () => void): HttpResponse;
  /** Runs `handler` when the socket drained after a write it could not take whole; one handler per response. */
  onWritable(handler: (offset: number) => boolean): HttpResponse;
  /** Receives the request body in chunks (copy them: the memory is reused); attach it in the route callback. */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void;
  /** Stops (and starts again) reading the connection while an answer is pending. */
  pause(): void;
  resume(): void;
  /** Cuts the connection at once. */
  close(): HttpResponse;
  /** The peer's address: 4 or 16 bytes. */
  getRemoteAddress(): ArrayBuffer;
  /** The peer's address as text (UTF-8 bytes). */
  getRemoteAddressAsText(): ArrayBuffer;
}

/** A route callback. */
export type RouteHandler = (res: HttpResponse, req: HttpRequest) => void | Promise<void>;

/**
 * Where routes register, by method, on a pattern: an exact path, one with
 * `:name` segments, or `/*`. The most specific pattern that has a handler
 * for the method (or `any`) serves a request.
 */
export interface HttpRouter {
  get(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  post(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  head(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  options(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  put(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  del(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  patch(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  trace(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  connect(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
  any(pattern: RecognizedString, handler: RouteHandler): HttpRouter;
}

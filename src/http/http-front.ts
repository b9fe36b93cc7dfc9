// A front: one HTTP server under the seam (src/http/seam.ts), which makes
// routers and turns one into an app that listens.
import type { Logger } from 'pino';

import type { Route } from './routes.js';
import type { HttpRouter } from './seam.js';

/** A router that serves: listening on demand, stopping to listen on demand or while descriptors run short. */
export interface HttpApp {
  /** Every route served, by path: HTTP's own and the mounted ones. */
  routes: Readonly<Record<string, Route>>;
  /** Starts listening; resolves with the port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; open responses carry on. */
  stopListening(): void;
}

/** The HTTP servers a front can be. */
export const HTTP_SERVERS = ['uws', 'node'] as const;
export type HttpServerName = (typeof HTTP_SERVERS)[number];

/** One HTTP server under the seam. */
export interface HttpFront {
  name: HttpServerName;
  /**
   * The least size of the body of an answer that refuses a request and
   * closes its connection (see request-checks.ts): past this the server
   * writes it out and closes before it parses on. 0: any size closes.
   */
  refusalBodyBytes: number;
  /** A new router to register routes on. */
  router(): HttpRouter;
  /** `router` as an app that listens; `routes` are what it serves (for the OpenAPI document and 405s). */
  serve(router: HttpRouter, routes: Readonly<Record<string, Route>>, logger?: Logger): HttpApp;
}

// The design's HTTP server: uWebSockets.js, whose request and response
// objects are the seam's own (src/http/seam.ts), so nothing is wrapped per
// request. Loaded from its native binary or not at all (uws.ts).

import type { HttpFront } from './http-front.js';
import type { HttpRouter } from './seam.js';
import { loadUws, type TemplatedApp } from './uws.js';
import { uwsListeningApp } from './uws-listening.js';

/** The uWS front; throws when its binary does not load here (the message says why). */
export function uwsFront(): HttpFront {
  const uws = loadUws();
  return {
    name: 'uws',
    // uWS's cork buffer (LoopData::CORK_BUFFER_SIZE): a body that cannot fit in it uncorks the socket.
    refusalBodyBytes: 16 * 1024,
    router: () => uws.App() as unknown as HttpRouter,
    serve: (router, routes, logger) => uwsListeningApp(uws, router as unknown as TemplatedApp, routes, logger),
  };
}

// A uWS app as an HttpApp: it listens when asked and stops listening when
// asked, while open responses carry on. While the process runs short of
// descriptors it stops listening by itself (see descriptor-guard.ts).
import type { Logger } from 'pino';

import { guardDescriptors } from './descriptor-guard.js';
import type { HttpApp } from './http-front.js';
import type { Route } from './routes.js';
import type { loadUws, TemplatedApp, us_listen_socket } from './uws.js';

/** `app` as an HttpApp: listening on demand, stopping to listen on demand or while descriptors run short. */
export function uwsListeningApp(uws: ReturnType<typeof loadUws>, app: TemplatedApp, routes: Readonly<Record<string, Route>>, logger?: Logger): HttpApp {
  let listenSocket: us_listen_socket | undefined;
  let stopGuard = (): void => {};
  const close = (): void => {
    if (listenSocket !== undefined) uws.us_listen_socket_close(listenSocket);
    listenSocket = undefined;
  };
  /** Listens on `host`:`port`; the socket, or undefined when it could not. */
  const listenOn = (host: string, port: number): us_listen_socket | undefined => {
    let bound: us_listen_socket | undefined;
    app.listen(host, port, (socket) => {
      bound = socket === false ? undefined : socket;
    });
    return bound;
  };
  return {
    routes,
    listen: async (host, port) => {
      // uSockets sets SO_REUSEADDR only when given a port: port 0 is resolved
      // first, or the guard could not listen again while connections accepted
      // before are open.
      const probe = port === 0 ? listenOn(host, 0) : undefined;
      const chosen = probe === undefined ? port : uws.us_socket_local_port(probe);
      if (probe !== undefined) uws.us_listen_socket_close(probe);
      listenSocket = listenOn(host, chosen);
      if (listenSocket === undefined) throw new Error(`could not listen on ${host}:${port}`);
      stopGuard = guardDescriptors(
        {
          descriptors: 1,
          pause: close,
          resume: async () => {
            listenSocket = listenOn(host, chosen);
            if (listenSocket === undefined) throw new Error(`could not listen on ${host}:${chosen}`);
          },
        },
        logger,
      );
      return chosen;
    },
    stopListening: () => {
      stopGuard();
      close();
    },
  };
}

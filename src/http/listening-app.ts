// A uWS app as an HttpApp: it listens when asked and stops listening when
// asked, while open responses carry on.
import type { HttpApp } from './app.js';
import type { Route } from './routes.js';
import type { loadUws, TemplatedApp, us_listen_socket } from './uws.js';

/** `app` as an HttpApp: listening on demand, stopping to listen on demand. */
export function listeningApp(uws: ReturnType<typeof loadUws>, app: TemplatedApp, routes: Readonly<Record<string, Route>>): HttpApp {
  let listenSocket: us_listen_socket | undefined;
  return {
    routes,
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (socket === false) return reject(new Error(`could not listen on ${host}:${port}`));
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket));
        });
      }),
    stopListening: () => {
      if (listenSocket !== undefined) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    },
  };
}

// Node's own HTTP server (llhttp) under the seam: the front on every Node
// version and platform, where uWebSockets.js has no binary. Node parses,
// frames and orders answers itself: HTTP/1.0 is answered (and closed unless
// it asked for keep-alive), pipelined requests are answered in order behind
// any pending answer, and what its parser refuses is answered here as JSON
// and closed (node-client-errors.ts). While the process runs short of
// descriptors it stops listening, as the uWS front does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

import type { Logger } from 'pino';

import { ApiError } from '../api/api-error.js';
import { guardDescriptors } from './descriptor-guard.js';
import type { HttpApp, HttpFront } from './http-front.js';
import { EXTRA_ACCEPT_LANES, openAcceptLanes } from './node-accept-lanes.js';
import { answerClientError, REFUSAL_HEADERS } from './node-client-errors.js';
import { isClosing, markClosing } from './node-closing-sockets.js';
import { notePeer, peerOf } from './node-peer-address.js';
import { NodeRouter } from './node-router.js';
import { MAX_HEAD_BYTES } from './request-checks.js';
import type { Route } from './routes.js';
import type { HttpRouter } from './seam.js';

export interface NodeFrontOptions {
  /** Longest wait for a whole request head (then 408). */
  headersTimeoutMs: number;
  /** Longest wait for a whole request, head and body (then 408). */
  requestTimeoutMs: number;
}

/**
 * Connections the kernel may hold for us before we accept them (capped by
 * net.core.somaxconn). Node's default of 511 overflows when a thousand
 * callers connect within a second, and each dropped SYN costs its caller a
 * 1 s retransmission.
 */
export const LISTEN_BACKLOG = 4096;

/** How long an idle keep-alive connection stays open: uWS's figure. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;

export function nodeFront(options: NodeFrontOptions): HttpFront {
  return {
    name: 'node',
    refusalBodyBytes: 0, // a refused request's connection closes once its answer is written (node-closing-sockets.ts)
    router: () => new NodeRouter(),
    serve: (router, routes, logger) => nodeListeningApp(router, routes, options, logger),
  };
}

function nodeListeningApp(router: HttpRouter, routes: Readonly<Record<string, Route>>, options: NodeFrontOptions, logger?: Logger): HttpApp {
  const server = createNodeServer(router as NodeRouter, options, logger);
  let stopGuard = (): void => {};
  let closeLanes = (): void => {};
  /** Listens, then opens the accept lanes beside the listening socket. */
  const listenOn = async (host: string, port: number): Promise<number> => {
    const chosen = await new Promise<number>((resolve, reject) => {
      const failed = (error: Error): void => reject(error);
      server.once('error', failed);
      server.listen({ host, port, backlog: LISTEN_BACKLOG }, () => {
        server.off('error', failed);
        const address = server.address();
        resolve(typeof address === 'object' && address !== null ? address.port : port);
      });
    });
    try {
      closeLanes = await openAcceptLanes(server, LISTEN_BACKLOG);
    } catch (error) {
      NetServer.prototype.close.call(server); // listening whole or not at all: a resume tries both again
      throw error;
    }
    return chosen;
  };
  return {
    routes,
    listen: async (host, port) => {
      const chosen = await listenOn(host, port).catch((error: Error) => {
        throw new Error(`could not listen on ${host}:${port}: ${error.message}`);
      });
      stopGuard = guardDescriptors(
        {
          descriptors: 1 + EXTRA_ACCEPT_LANES, // at most: without the addon there are no lanes, and resuming later is safe
          pause: () => {
            // net.Server's own close: the http server's would also close the idle keep-alive connections.
            closeLanes();
            NetServer.prototype.close.call(server);
          },
          resume: async () => {
            await listenOn(host, chosen);
          },
        },
        logger,
      );
      return chosen;
    },
    stopListening: () => {
      stopGuard();
      closeLanes();
      server.close();
    },
  };
}

/**
 * What Node's parser lets through but the RFCs refuse: a major version
 * other than 1 (RFC 9110 §15.6.6: 505), an HTTP/1.1 request without Host
 * (RFC 9112 §3.2: 400; Node's own check answers it without a JSON body, so
 * it is off and this is it).
 */
function refusalOfHead(message: IncomingMessage): ApiError | null {
  if (message.httpVersionMajor !== 1) return new ApiError('version_not_supported', `HTTP/${message.httpVersion} is not served here; use HTTP/1.1`);
  if (message.httpVersionMinor === 1 && message.headers.host === undefined) return new ApiError('bad_request', 'an HTTP/1.1 request must carry a Host header');
  return null;
}

function refuseAndClose(response: ServerResponse, socket: Socket, refusal: ApiError): void {
  const answer = refusal.answer({});
  markClosing(socket);
  response.shouldKeepAlive = false;
  response.writeHead(Number(answer.status.slice(0, 3)), REFUSAL_HEADERS).end(JSON.stringify(answer.body));
}

function createNodeServer(router: NodeRouter, options: NodeFrontOptions, logger?: Logger): Server {
  const server = createServer({
    maxHeaderSize: MAX_HEAD_BYTES,
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    // Timeouts are checked this often: a slow head is answered within a second of its limit.
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    requireHostHeader: false, // checked in the request handler: see lacksHost
  });
  server.on('connection', notePeer);
  server.on('request', (message, response) => {
    const socket = message.socket as Socket;
    if (isClosing(socket)) return; // behind an answer that closes the connection: never read
    const refusal = refusalOfHead(message);
    if (refusal !== null) return refuseAndClose(response, socket, refusal);
    router.dispatch(message, response, socket);
  });
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    const refusal = answerClientError(error, socket);
    if (refusal !== null) {
      const ip = new TextDecoder().decode(peerOf(socket).text);
      logger?.info({ event: 'request', ip, status: refusal.code, parse_error: error.code }, 'request refused before routing');
    }
  });
  // CONNECT is no request a route can take: Node hands it over as a raw socket.
  server.on('connect', (_message, socket: Socket) => answerClientError(Object.assign(new Error('CONNECT'), { code: 'HPE_INVALID_METHOD' }), socket));
  return server;
}

// Which HTTP server runs the seam (setting `http.server`): uWebSockets.js
// where its binary loads (the design's server, and `auto`'s first choice),
// Node's own http elsewhere. `uws` where its binary does not load stops the
// start with the loader's reason; `auto` says in one log line which front
// it took and why.
import type { Logger } from 'pino';

import { ConfigError } from '../config/config-sources.js';
import type { HttpServerChoice } from '../config/http-server-choices.js';
import type { HttpFront, HttpServerName } from './http-front.js';
import { type NodeFrontOptions, nodeFront } from './node-front.js';
import { uwsFront } from './uws-front.js';

export interface HttpFrontSettings extends NodeFrontOptions {
  server: HttpServerChoice;
}

/** The front `settings.server` names; throws for `uws` where its binary does not load. */
export function chooseHttpFront(settings: HttpFrontSettings, logger: Logger): HttpFront {
  const { server } = settings;
  if (server === 'node') return logged(nodeFront(settings), logger, 'http.server is node');
  if (server === 'uws') {
    try {
      return logged(uwsFront(), logger, 'http.server is uws');
    } catch (error) {
      throw new ConfigError(`http.server is uws, but ${(error as Error).message} Set http.server to auto or node (SELFSCAN_HTTP_SERVER).`);
    }
  }
  try {
    return logged(uwsFront(), logger, "uWebSockets.js's binary loads here");
  } catch (error) {
    return logged(nodeFront(settings), logger, (error as Error).message);
  }
}

function logged(front: HttpFront, logger: Logger, why: string): HttpFront {
  const name: HttpServerName = front.name;
  logger.info({ event: 'http_server', http_server: name, why }, `HTTP server: ${name === 'uws' ? 'uWebSockets.js' : "Node's http"} (${why})`);
  return front;
}

// Loads uWebSockets.js's native binary directly. The package's own entry
// falls back to a slow pure-JavaScript server when its binary does not load;
// selfscan must never serve traffic that way, so startup fails instead.
import { createRequire } from 'node:module';

import type * as Uws from '@trufflesuite/uws-js-unofficial';

export type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

const require = createRequire(import.meta.url);

export function loadUws(): typeof Uws {
  const binary = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    return require(`@trufflesuite/uws-js-unofficial/binaries/${binary}`) as typeof Uws;
  } catch (error) {
    throw new Error(
      `uWebSockets.js has no native binary that loads on ${process.platform}-${process.arch} ` +
        `with Node ${process.version} (ABI ${process.versions.modules}, looked for ${binary}): ` +
        `${(error as Error).message}. selfscan does not run on its JavaScript fallback.`,
    );
  }
}

// Loads uWebSockets.js's native binary directly. The package's own entry
// falls back to a slow pure-JavaScript server when its binary does not load;
// selfscan must never serve traffic that way, so startup fails instead.
import { createRequire } from 'node:module';

import type * as Uws from '@trufflesuite/uws-js-unofficial';

export type { HttpRequest, HttpResponse, RecognizedString, TemplatedApp, us_listen_socket } from '@trufflesuite/uws-js-unofficial';

const require = createRequire(import.meta.url);

/** Which binary to load; this process's own unless a test says otherwise. */
export interface UwsPlatform {
  platform: string;
  arch: string;
  abi: string;
  nodeVersion: string;
}

const THIS_PROCESS: UwsPlatform = {
  platform: process.platform,
  arch: process.arch,
  abi: process.versions.modules,
  nodeVersion: process.version,
};

export function loadUws(target: UwsPlatform = THIS_PROCESS): typeof Uws {
  const binary = `uws_${target.platform}_${target.arch}_${target.abi}.node`;
  try {
    return require(`@trufflesuite/uws-js-unofficial/binaries/${binary}`) as typeof Uws;
  } catch (error) {
    throw new Error(
      `uWebSockets.js has no native binary that loads on ${target.platform}-${target.arch} ` +
        `with Node ${target.nodeVersion} (ABI ${target.abi}, looked for ${binary}): ` +
        `${(error as Error).message.split('\n')[0]}. selfscan does not run on its JavaScript fallback.`,
    );
  }
}

// The native scanner of a process that scans, on the engine its settings
// ask for (scanner.engine, scanner.poller): one log line at start naming the
// engine in use and why, and a start-up error an operator can act on when
// `syn` is asked for in a process without CAP_NET_RAW. Loads the addon.
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-sources.js';
import { type EngineChoice, type EngineName, SYN_NEEDS_CAP_NET_RAW_CODE } from '../native/engine-choices.js';
import type { Scanner } from '../native/scanner.js';

/** How to give the process CAP_NET_RAW (README: Scanner engines). */
const HOW_TO_GRANT =
  'Grant CAP_NET_RAW to node (setcap cap_net_raw+ep "$(readlink -f "$(which node)")"; under systemd AmbientCapabilities=CAP_NET_RAW ' +
  'with CapabilityBoundingSet=CAP_NET_RAW; Docker grants it unless the container drops it: --cap-add NET_RAW), or set scanner.engine to auto or connect';

/** Why `engine` runs when `asked` was asked for; `fallback`: the addon's reason for leaving syn. */
function engineReason(asked: EngineChoice, engine: EngineName, fallback: string | undefined): string {
  if (engine === 'syn') return asked === 'syn' ? 'asked for; CAP_NET_RAW' : 'CAP_NET_RAW';
  if (asked === 'connect') return 'asked for';
  return `no CAP_NET_RAW: ${fallback ?? 'no raw socket'}; fell back from the syn engine`;
}

/**
 * Starts the process's native scanner with `settings`; logs the engine in
 * use and why. Throws a ConfigError saying how to grant CAP_NET_RAW when
 * `engine` is `syn` and the process lacks it.
 */
export async function openNativeScanner(settings: Config['scanner'], logger: Logger): Promise<Scanner> {
  const { createScanner } = await import('../native/scanner.js');
  let scanner: Scanner;
  try {
    scanner = createScanner({ poller: settings.poller, engine: settings.engine });
  } catch (error) {
    if ((error as { code?: unknown }).code !== SYN_NEEDS_CAP_NET_RAW_CODE) throw error;
    throw new ConfigError(`scanner.engine is syn, but ${(error as Error).message.replace(/\.$/, '')}. ${HOW_TO_GRANT}.`);
  }
  const { engine, engineFallback } = scanner.stats();
  const reason = engineReason(settings.engine, engine, engineFallback);
  logger.info({ event: 'scanner_engine', engine, asked: settings.engine, reason }, `scanner engine: ${engine} (${reason})`);
  return scanner;
}

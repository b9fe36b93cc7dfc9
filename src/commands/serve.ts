// `selfscan serve`: the service's options and help, and the process that
// runs until SIGTERM or SIGINT, then drains scans in flight and exits.
import { parseArgs } from 'node:util';

import { ConfigError, loadConfig } from '../config/config-sources.js';
import { SERVE_FLAGS } from '../config/serve-flags.js';
import { createLogger } from '../log/logger.js';
import { startServer } from '../roles/serve.js';
import { HELP } from './help.js';

/** `selfscan serve ARGS`: starts the service; it runs until a signal. */
export async function run(args: string[]): Promise<void> {
  try {
    serve(args);
  } catch (error) {
    if (error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`selfscan: ${(error as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

function serve(args: string[]): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...Object.fromEntries(Object.values(SERVE_FLAGS).map(({ flag, isSwitch }) => [flag.slice(2), { type: isSwitch ? 'boolean' : 'string' } as const])),
      config: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig(values);
  const logger = createLogger({ level: config.logLevel });
  startServer(config, logger).then(
    (server) => {
      const stop = (signal: string): void => {
        logger.info({ event: 'signal', signal }, `${signal}: draining scans in flight`);
        server.close().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        // A setting the process cannot honour (scanner.engine syn without CAP_NET_RAW): said as a bad value is, no trace.
        process.stderr.write(`selfscan: ${error.message}\n`);
        process.exit(2);
      }
      logger.fatal({ err: error }, `selfscan could not start: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}

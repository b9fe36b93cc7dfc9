// `selfscan serve`: the service's options and help, and the process that
// runs until SIGTERM or SIGINT, then drains scans in flight and exits.
import { parseArgs } from 'node:util';

import { ConfigError, isSwitch, loadConfig, SETTINGS, type Setting } from './config/config-sources.js';
import { createLogger } from './log.js';
import { startServer } from './roles/serve.js';
import { VERSION } from './version.js';

const FLAG_SETTINGS = SETTINGS.filter((setting) => setting.meta.flag !== undefined);

function flagHelp(setting: Setting): string {
  const name = `  ${setting.meta.flag}${
    isSwitch(setting)
      ? ''
      : ` ${setting.path
          .at(-1)!
          .replace(/[A-Z]/g, (c) => `_${c}`)
          .toUpperCase()}`
  }`;
  return `${name.padEnd(29)}${setting.meta.description} (${setting.env})`;
}

/** `selfscan --help`: every command, and the options of serve. */
export const HELP = `selfscan ${VERSION}: tells a server which of its TCP ports the outside world can reach

Usage:
  selfscan serve [options]                      run the HTTP service
  selfscan optout add|remove CIDR [--file PATH] edit the opt-out list (a running service reloads it)
  selfscan optout list [--file PATH]            print the opt-out list
  selfscan check [options]                      check this host's reachable ports against what you expect
                                                (exit 0 pass, 1 fail, 2 undecided; selfscan check --help)
  selfscan --help                               show this help
  selfscan --version                            print the version

The optout commands use the optOutFile of --config FILE (or SELFSCAN_CONFIG)
unless --file is given.

Options of serve (every setting also has an environment variable; README lists them all):
${FLAG_SETTINGS.map(flagHelp).join('\n')}
  --config FILE              JSON config file (SELFSCAN_CONFIG); see README for its keys
  -h, --help                 show this help
`;

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
      ...Object.fromEntries(FLAG_SETTINGS.map((setting) => [setting.meta.flag!.slice(2), { type: isSwitch(setting) ? 'boolean' : 'string' } as const])),
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
      logger.fatal({ err: error }, `selfscan could not start: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}

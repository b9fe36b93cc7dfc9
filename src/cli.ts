#!/usr/bin/env node
// `selfscan`: the command line. `selfscan serve` runs the service until
// SIGTERM or SIGINT, then drains scans in flight and exits.
import { parseArgs } from 'node:util';

import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './log.js';
import { runOptOutCommand } from './opt-out-command.js';
import { startServer } from './server.js';
import { VERSION } from './version.js';

const HELP = `selfscan ${VERSION}: tells a server which of its TCP ports the outside world can reach

Usage:
  selfscan serve [options]                      run the HTTP service
  selfscan optout add|remove CIDR [--file PATH] edit the opt-out list (a running service reloads it)
  selfscan optout list [--file PATH]            print the opt-out list
  selfscan --help                               show this help
  selfscan --version                            print the version

The optout commands use the optOutFile of --config FILE (or SELFSCAN_CONFIG)
unless --file is given.

Options of serve (each also as an environment variable):
  --host HOST                address to listen on (SELFSCAN_HOST; default 0.0.0.0)
  --port PORT                port to listen on, 0 for any free one (SELFSCAN_PORT; default 8080)
  --data-dir DIR             where results are stored (SELFSCAN_DATA_DIR; default ./data)
  --config FILE              JSON config file (SELFSCAN_CONFIG); see README for its keys
  --allow-private-targets    scan loopback and private callers too: local trials and tests only
                             (SELFSCAN_ALLOW_PRIVATE_TARGETS=1)
  --allow-private-callbacks  let webhooks go to loopback and private addresses: local trials and
                             tests only (SELFSCAN_ALLOW_PRIVATE_CALLBACKS=1)
  -h, --help                 show this help
`;

function serve(args: string[]): void {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      'allow-private-targets': { type: 'boolean' },
      'allow-private-callbacks': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const config = loadConfig({
    host: values.host,
    port: values.port,
    dataDir: values['data-dir'],
    config: values.config,
    allowPrivateTargets: values['allow-private-targets'],
    allowPrivateCallbacks: values['allow-private-callbacks'],
  });
  const logger = createLogger();
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

/** `selfscan optout …`: takes the file from --file, else from the config. */
async function optOut(args: string[]): Promise<void> {
  const at = args.indexOf('--config');
  const configFile = at >= 0 ? args[at + 1] : undefined;
  const rest = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
  const { optOutFile } = loadConfig({ config: configFile });
  process.exitCode = await runOptOutCommand(rest, optOutFile);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case '--version':
      case '-v':
        process.stdout.write(`${VERSION}\n`);
        return;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return;
      case 'serve':
        serve(rest);
        return;
      case 'optout':
        await optOut(rest);
        return;
      default:
        process.stderr.write(`selfscan: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
        process.exitCode = 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`selfscan: ${(error as Error).message}\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}

void main(process.argv.slice(2));

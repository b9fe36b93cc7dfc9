// `selfscan optout …` as the command line runs it: the opt-out file is
// --file, else the optOutFile of --config FILE (or SELFSCAN_CONFIG).
import { ConfigError, loadConfig } from '../config/config-sources.js';
import { runOptOutCommand } from './optout-command.js';

/** Runs `selfscan optout ARGS` and sets the exit code. */
export async function run(args: string[]): Promise<void> {
  const at = args.indexOf('--config');
  const configFile = at >= 0 ? args[at + 1] : undefined;
  const rest = at >= 0 ? args.filter((_, i) => i !== at && i !== at + 1) : args;
  try {
    const { optOutFile } = loadConfig({ config: configFile });
    process.exitCode = await runOptOutCommand(rest, optOutFile);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`selfscan: ${error.message}\n`);
    process.exitCode = 2;
  }
}

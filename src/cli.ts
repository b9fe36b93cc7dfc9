#!/usr/bin/env node
// `selfscan`: the command line, a table of commands (src/commands/, and the
// check client). Each command's module is imported only when it runs, so
// `selfscan check` loads the client and never the server (uWS, lmdb, the
// addon, zod), and `selfscan --help` loads only the help.
import { VERSION } from './api/version.js';

/** A command: runs with the arguments after its name. */
interface Command {
  run(args: string[]): Promise<void>;
}

const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: () => import('./commands/serve.js'),
  optout: () => import('./commands/optout.js'),
  check: () => import('./client/check-cli.js'),
};

async function help(): Promise<string> {
  return (await import('./commands/help.js')).HELP;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return;
  }
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(await help());
    return;
  }
  const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (load === undefined) {
    process.stderr.write(`selfscan: unknown command ${JSON.stringify(command)}\n\n${await help()}`);
    process.exitCode = 2;
    return;
  }
  await (await load()).run(rest);
}

void main(process.argv.slice(2));

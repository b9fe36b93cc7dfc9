// `selfscan optout add|remove|list`: edits the opt-out file that a running
// service reloads by itself.
import { parseArgs } from 'node:util';

import { addOptOut, listOptOut, removeOptOut } from '../limits/opt-out/opt-out-file.js';
import { parseOptOutEntry } from '../limits/opt-out/opt-out-list.js';

/** Usage of `selfscan optout`. */
export const OPT_OUT_HELP = `Usage:
  selfscan optout add CIDR [--file PATH]      never scan this address or network
  selfscan optout remove CIDR [--file PATH]   drop it from the opt-out list
  selfscan optout list [--file PATH]          print the listed networks, one a line

CIDR is an IPv4 or IPv6 address or network (a bare address means /32 or /128).
PATH defaults to the configured optOutFile; a running service reloads it by itself.
`;

/** Where the command writes; process.stdout and process.stderr unless given. */
export interface OptOutCommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Runs `selfscan optout ARGS` against the opt-out file `--file PATH` or else
 * `defaultPath`. Resolves the exit code: 0 done, 1 no file configured or the
 * file could not be read or written, 2 bad usage or an invalid CIDR.
 */
/** The flags of `selfscan optout`. */
const OPTIONS = { file: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export async function runOptOutCommand(args: string[], defaultPath: string | undefined, io: OptOutCommandIo = process): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`selfscan optout: ${message}\n\n${OPT_OUT_HELP}`);
    return 2;
  };
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (error) {
    return usage((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(OPT_OUT_HELP);
    return 0;
  }
  const [action, cidr, ...extra] = positionals;
  const wantsCidr = action === 'add' || action === 'remove';
  if (action === undefined) return usage('missing action: add, remove or list');
  if (!wantsCidr && action !== 'list') return usage(`unknown action ${JSON.stringify(action)}`);
  if (wantsCidr && cidr === undefined) return usage(`${action} needs a CIDR`);
  if (extra.length > 0 || (!wantsCidr && cidr !== undefined)) return usage('too many arguments');
  const entry = cidr === undefined ? undefined : parseOptOutEntry(cidr);
  if (typeof entry === 'string') {
    io.stderr.write(`selfscan optout: ${entry}\n`);
    return 2;
  }
  const path = values.file ?? defaultPath;
  if (path === undefined || path === '') {
    io.stderr.write('selfscan optout: no opt-out file configured: set optOutFile in the config or pass --file PATH\n');
    return 1;
  }
  try {
    if (entry === undefined) {
      for (const network of await listOptOut(path)) io.stdout.write(`${network}\n`);
      return 0;
    }
    const network = entry.cidr;
    if (action === 'add') {
      const added = await addOptOut(path, network);
      io.stdout.write(added ? `added ${network} to ${path}\n` : `${network} is already in ${path}\n`);
    } else {
      const removed = await removeOptOut(path, network);
      io.stdout.write(removed ? `removed ${network} from ${path}\n` : `${network} is not in ${path}\n`);
    }
    return 0;
  } catch (error) {
    io.stderr.write(`selfscan optout: ${(error as Error).message}\n`);
    return 1;
  }
}

// `selfscan --help` (and `selfscan serve --help`): every command, and the
// options of serve from the zod-free table of its flags, so printing it
// loads nothing of the server.

import { VERSION } from '../api/version.js';
import { flagHelp, SERVE_FLAGS } from '../config/serve-flags.js';

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
${Object.values(SERVE_FLAGS).map(flagHelp).join('\n')}
  --config FILE              JSON config file (SELFSCAN_CONFIG); see README for its keys
  -h, --help                 show this help
`;

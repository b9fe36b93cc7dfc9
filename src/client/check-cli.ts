// `selfscan check …`: the command the CLI's table loads (it loads nothing
// of the server).
import { runCheck } from './run-check.js';

/** Runs `selfscan check ARGS` and sets the exit code. */
export async function run(args: string[]): Promise<void> {
  process.exitCode = await runCheck(args, { stdout: process.stdout, stderr: process.stderr, env: process.env });
}

// Stopping a child process a test or benchmark started: kill -9, and wait
// until it has exited, so its ports, sockets and files are free when this
// resolves.
import type { ChildProcess } from 'node:child_process';

/** SIGKILLs `child` unless it has already exited; resolves once it has. */
export async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

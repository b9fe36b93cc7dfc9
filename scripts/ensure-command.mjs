// A command a script needs, installed when missing: as root on Debian or
// Ubuntu with apt-get (as `npm test` installs the tests' packages);
// elsewhere the script stops and says what to install.
import { spawnSync } from 'node:child_process';

/** Whether `command` is on the PATH. */
const hasCommand = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/**
 * Makes sure `command` runs: installs Debian package `pkg` when it is
 * missing and we are root with apt-get; otherwise exits 1 saying `howTo`.
 */
export function ensureCommand(command, pkg, howTo = `apt-get install ${pkg}`) {
  if (hasCommand(command)) return;
  if (process.getuid?.() === 0 && hasCommand('apt-get')) {
    console.log(`${command}: installing it (apt-get install ${pkg})`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [
      ['update', '-qq'],
      ['install', '-y', '-qq', pkg],
    ]) {
      if (spawnSync('apt-get', args, { stdio: 'inherit', env }).status !== 0) process.exit(1);
    }
    return;
  }
  console.error(`${command} is missing: ${howTo}`);
  process.exit(1);
}

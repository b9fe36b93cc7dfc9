// System packages a script needs, installed when missing: as root on
// Debian or Ubuntu with apt-get (`npm test` installs the tests' tools this
// way, the lint clang-format, bench:http wrk); elsewhere the script stops
// and says what to install.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';

/** Whether `command` is on the PATH. */
export const hasCommand = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/**
 * Installs the Debian `packages` (as root); `who` names the script in its
 * messages. A package's own service is kept from starting (tests spawn
 * their own redis-server). Exits when apt-get fails.
 */
export function aptInstall(packages, who) {
  console.log(`${who}: installing ${packages.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    for (const args of [
      ['update', '-qq'],
      ['install', '-y', '-qq', ...packages],
    ]) {
      const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
      if (result.status !== 0) {
        console.error(`${who}: apt-get ${args.join(' ')} failed (${result.status ?? result.signal})`);
        process.exit(result.status ?? 1);
      }
    }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
}

/**
 * Makes sure `command` runs: installs Debian package `pkg` when it is
 * missing and we are root with apt-get; otherwise exits 1 saying `howTo`.
 */
export function ensureCommand(command, pkg, howTo = `apt-get install ${pkg}`) {
  if (hasCommand(command)) return;
  if (process.getuid?.() === 0 && hasCommand('apt-get')) return aptInstall([pkg], command);
  console.error(`${command} is missing: ${howTo}`);
  process.exit(1);
}

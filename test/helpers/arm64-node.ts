// Debian's arm64 Node, run under qemu-user on this x64 machine: what proves
// the linux-arm64 prebuild loads and scans. Its packages (nodejs and
// libnode, which apt cannot install beside the x64 ones) are downloaded and
// unpacked once into a cache directory; the arm64 libraries it links to are
// installed by `npm test` (scripts/test.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGES = ['nodejs:arm64', 'libnode108:arm64'];
const ROOT = join(tmpdir(), 'selfscan-arm64-node');

export interface Arm64Node {
  /** The command and arguments that run arm64 `node` with `args`. */
  command(args: readonly string[]): [string, string[]];
  /** The environment it needs (its libnode), added to `env`. */
  env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

/** Fetches and unpacks the arm64 Node once; throws if apt cannot. */
export function arm64Node(): Arm64Node {
  const node = join(ROOT, 'usr/bin/node');
  if (!existsSync(node)) {
    const debs = join(ROOT, 'debs');
    mkdirSync(debs, { recursive: true });
    execFileSync('apt-get', ['download', ...PACKAGES], { cwd: debs, stdio: 'pipe' });
    for (const deb of readdirSync(debs).filter((name) => name.endsWith('.deb'))) {
      execFileSync('dpkg', ['-x', join(debs, deb), ROOT]);
    }
  }
  return {
    command: (args) => ['qemu-aarch64-static', ['-L', '/', node, ...args]],
    env: (env) => ({ ...env, LD_LIBRARY_PATH: join(ROOT, 'usr/lib/aarch64-linux-gnu') }),
  };
}

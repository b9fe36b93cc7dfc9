#!/usr/bin/env node
// `npm run prebuildify`: the stripped N-API binaries the package ships, in
// prebuilds/, tagged with their libc: linux-arm64, cross-compiled with
// Debian's g++-aarch64-linux-gnu, then linux-x64 on this machine. arm64
// first: each build replaces build/Release, which must end as this
// machine's own. Elsewhere than linux-x64, only this machine's binary.
import { spawnSync } from 'node:child_process';
import { arch, platform } from 'node:os';

const CROSS = { CC: 'aarch64-linux-gnu-gcc', CXX: 'aarch64-linux-gnu-g++', LINK: 'aarch64-linux-gnu-g++' };
const CROSS_STRIP = 'aarch64-linux-gnu-strip';

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function prebuildify(args, env = {}) {
  const result = spawnSync('npx', ['prebuildify', '--napi', '--strip', '--tag-libc', ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) {
    console.error(`prebuildify ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

if (platform() === 'linux' && arch() === 'x64') {
  const missing = [CROSS.CXX, CROSS_STRIP].filter((command) => !has(command));
  if (missing.length > 0) {
    console.error(`prebuildify: ${missing.join(' and ')} missing for the linux-arm64 binary: apt-get install g++-aarch64-linux-gnu`);
    process.exit(1);
  }
  prebuildify(['--arch', 'arm64', '--strip-bin', CROSS_STRIP], CROSS);
}
prebuildify([]);

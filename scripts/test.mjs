#!/usr/bin/env node
// `npm test`: installs the system tools the tests drive (nmap, ip, iptables)
// when they are missing, builds the addon and the TypeScript, runs every
// vitest project, then prints one closing line "N passed, N failed".
// Extra arguments go to vitest, e.g. `npm test -- --project unit`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const tools = { nmap: 'nmap', ip: 'iproute2', iptables: 'iptables', ip6tables: 'iptables' };

function has(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`test: ${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

const missing = [...new Set(Object.entries(tools).filter(([cmd]) => !has(cmd)).map(([, pkg]) => pkg))];
if (missing.length > 0) {
  if (process.getuid?.() !== 0) {
    console.error(`test: missing ${missing.join(', ')}; install them or run as root`);
    process.exit(1);
  }
  console.log(`test: installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', ...missing], { env });
}

// Always build the addon from the checked-out sources (incremental).
run('npx', ['node-gyp', existsSync('build/Makefile') ? 'build' : 'rebuild', '--nodedir=/usr'], {
  env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' },
});
run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
run('npx', ['tsc', '-p', 'tsconfig.build.json']);

const resultsFile = '.vitest-results.json';
rmSync(resultsFile, { force: true });
const vitest = spawnSync(
  'npx',
  ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
if (!existsSync(resultsFile)) {
  console.error('test: vitest wrote no results');
  process.exit(vitest.status || 1);
}
const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
const skipped = results.numPendingTests + results.numTodoTests;
console.log(`\ntests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
const ok = vitest.status === 0 && results.numFailedTests === 0 && results.numTotalTests > 0;
process.exit(ok ? 0 : 1);

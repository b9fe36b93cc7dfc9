// Runs the built `selfscan-check` (packages/selfscan-check/selfscan-check.js,
// bundled by scripts/build-check.mjs) or the built `selfscan check`
// (dist/cli.js) as a child process, and collects what it wrote and how it
// exited.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CHECK_BUNDLE = `${ROOT}packages/selfscan-check/selfscan-check.js`;
export const CLI = `${ROOT}dist/cli.js`;

export interface CheckRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The environment of a run: this process's, less what changes the client's output (CI, NO_COLOR, SELFSCAN_SERVER). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['CI', 'NO_COLOR', 'FORCE_COLOR', 'SELFSCAN_SERVER', 'NODE_OPTIONS']) delete env[name];
  return { ...env, ...extra };
}

/** Runs `selfscan-check ARGS` (or `selfscan check ARGS` with `via: 'cli'`); `prefix`: a command it runs under (`ip netns exec NS`). */
export function runCheck(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; via?: 'bundle' | 'cli'; cwd?: string; prefix?: readonly string[] } = {},
): Promise<CheckRun> {
  const argv = options.via === 'cli' ? [CLI, 'check', ...args] : [CHECK_BUNDLE, ...args];
  const [file, ...rest] = [...(options.prefix ?? []), process.execPath, ...argv];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(file!, rest, { env: options.env ?? cleanEnv(), cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

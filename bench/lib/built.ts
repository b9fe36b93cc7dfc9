// The benchmarks measure the service as `npm start` runs it: the tsc build
// in dist/ (the bench:http and bench:load scripts build it first), not the sources through
// tsx, whose transform adds work to every call of a hot path.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built command line, `selfscan`. */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** Imports a module of the build by its path under src/ (`server.js`), typed as its source. */
export async function importBuilt<T>(path: string): Promise<T> {
  const url = new URL(`../../dist/${path}`, import.meta.url);
  if (!existsSync(url)) throw new Error(`${fileURLToPath(url)} is missing: run \`npm run build\` first (the bench:* scripts do)`);
  return (await import(url.href)) as T;
}

// A PATH on which no compiler can be found: a folder of links to every
// program of /usr/bin and /bin except compilers, make and python (which
// node-gyp needs), for proving that an install compiles nothing. Its `node`
// is the one running the tests, so a node leg of `npm test`
// (scripts/node-legs.mjs) installs and serves the package on its own Node.
import { mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COMPILERS = /^(cc|c\+\+|cpp|gcc|g\+\+|clang|make|gmake|ld|python|x86_64-linux-gnu-(gcc|g\+\+|cpp|ld))/;

export function noCompilerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-nocc-'));
  symlinkSync(process.execPath, join(dir, 'node'));
  for (const source of ['/usr/bin', '/bin']) {
    for (const name of readdirSync(source)) {
      if (COMPILERS.test(name)) continue;
      try {
        symlinkSync(join(source, name), join(dir, name));
      } catch {
        // the same name in both folders: the first one wins
      }
    }
  }
  return dir;
}

// Loads the compiled addon. node-gyp-build picks build/Release when there is
// one, else the prebuilt binary for this platform from prebuilds/. A binary
// that is there but does not load on this host (another libc, a library
// version the host lacks) must not end the process with a bare linker
// message: the error says which binary failed, why, and how to build one.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const nodeGypBuild = require('node-gyp-build') as { path(dir: string): string };

const BUILD_FROM_SOURCE = 'build one for this host from source: npm rebuild selfscan --build-from-source (needs python3, make and a C++17 compiler)';

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).trim().split('\n')[0] ?? '';
}

/** The addon under `packageRoot`, or an error that says how to get one. */
export function loadAddon(packageRoot: string): unknown {
  let binary: string;
  try {
    binary = nodeGypBuild.path(packageRoot);
  } catch (err) {
    throw new Error(`selfscan has no native scanner for ${process.platform}-${process.arch}: ${firstLine(err)}; ${BUILD_FROM_SOURCE}`, { cause: err });
  }
  try {
    return require(binary);
  } catch (err) {
    throw new Error(`selfscan's native scanner ${binary} did not load: ${firstLine(err)}; ${BUILD_FROM_SOURCE}`, { cause: err });
  }
}

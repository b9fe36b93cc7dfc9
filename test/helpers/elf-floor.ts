// What a shared object asks of the host's libraries: the versioned symbols
// in its dynamic table (objdump -T), reduced to what decides where it loads.
import { execFileSync } from 'node:child_process';

import { expect } from 'vitest';

/** The newest glibc the addon may need: RHEL 7's; every maintained Linux has it. */
const GLIBC_FLOOR = '2.17';
/**
 * The newest libgcc_s symbol version it may need (GCC 4.2's, 2007): libgcc_s
 * stays shared, as every glibc system has it (glibc itself loads it), while
 * the static unwinder of GCC 12 would need glibc 2.35.
 */
const LIBGCC_FLOOR = '4.2.0';

export interface LibraryFloor {
  /** The highest GLIBC_x.y any symbol needs, as "2.17"; undefined when none. */
  glibc: string | undefined;
  /** The highest GCC_x.y (libgcc_s) any symbol needs; undefined when none. */
  libgcc: string | undefined;
  /** Symbols needing a version of libstdc++ (GLIBCXX_, CXXABI_), as "name@VERSION". */
  cxxRuntime: string[];
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** True when version `a` (like "2.28") is at most `b`. */
function versionAtMost(a: string, b: string): boolean {
  return compareVersions(a, b) <= 0;
}

/** Reads `file`'s dynamic symbol table. */
export function libraryFloor(file: string): LibraryFloor {
  const table = execFileSync('objdump', ['-T', file], { encoding: 'utf8' });
  let glibc: string | undefined;
  let libgcc: string | undefined;
  const cxxRuntime: string[] = [];
  const highest = (current: string | undefined, found: string) => (current === undefined || compareVersions(found, current) > 0 ? found : current);
  for (const line of table.split('\n')) {
    // "0000000000000000      DF *UND*  0000000000000000 (GLIBC_2.29) exp"
    const match = /\(?((?:GLIBC|GLIBCXX|CXXABI|GCC)_[\d.]+)\)?\s+(\S+)\s*$/.exec(line);
    if (!match) continue;
    const [, version, name] = match as unknown as [string, string, string];
    if (version.startsWith('GLIBC_')) {
      glibc = highest(glibc, version.slice('GLIBC_'.length));
    } else if (version.startsWith('GCC_')) {
      libgcc = highest(libgcc, version.slice('GCC_'.length));
    } else {
      cxxRuntime.push(`${name}@${version}`);
    }
  }
  return { glibc, libgcc, cxxRuntime };
}

/** Fails unless `floor` needs no libstdc++ and nothing above GLIBC_FLOOR and LIBGCC_FLOOR. */
export function expectFloor(floor: LibraryFloor): void {
  expect(floor.cxxRuntime).toEqual([]);
  expect(floor.glibc).toBeDefined();
  expect(versionAtMost(floor.glibc!, GLIBC_FLOOR), `needs GLIBC_${floor.glibc}`).toBe(true);
  expect(floor.libgcc === undefined || versionAtMost(floor.libgcc, LIBGCC_FLOOR), `needs GCC_${floor.libgcc}`).toBe(true);
}

// The built addon needs only glibc (no newer than 2.17) and libgcc_s: its
// C++ runtime is linked in (a prebuild linked against GCC 12's libstdc++
// died at start on RHEL 9 and Ubuntu 20.04), the libm functions glibc 2.29
// renewed are bound to their first versions (native/compat/glibc_floor.h),
// and what the static libstdc++ asks of glibc 2.32-2.36 is wrapped
// (native/compat/glibc_floor.cc).
import { fileURLToPath } from 'node:url';

import { it } from 'vitest';

import { expectFloor, libraryFloor } from '../helpers/elf-floor.js';

const BINARY = fileURLToPath(new URL('../../build/Release/selfscan.node', import.meta.url));

it('needs no libstdc++, no glibc above 2.17 and no libgcc_s above GCC 4.2', () => {
  expectFloor(libraryFloor(BINARY));
});

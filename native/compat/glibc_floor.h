// Force-included into every translation unit of the addon on Linux/glibc
// (binding.gyp): binds the libm functions that glibc 2.29 (exp, exp2, log,
// log2, pow) and 2.23 (lgamma) gave new default versions to their first
// versions, so the binary needs nothing newer than glibc 2.17 and loads on
// every maintained Linux (RHEL 8 has 2.28; the new versions differ only in
// how they report errors through errno, which the engine never reads).
// test/native/binary-floor.test.ts reads the built binary's symbol versions.
#pragma once

#if defined(__linux__)
#include <features.h>  // defines __GLIBC__ on glibc, not on musl
#endif

#if defined(__GLIBC__)
#if defined(__x86_64__)
#define SELFSCAN_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SELFSCAN_GLIBC_BASE "GLIBC_2.17"
#endif
#ifdef SELFSCAN_GLIBC_BASE
__asm__(".symver exp,exp@" SELFSCAN_GLIBC_BASE);
__asm__(".symver exp2,exp2@" SELFSCAN_GLIBC_BASE);
__asm__(".symver log,log@" SELFSCAN_GLIBC_BASE);
__asm__(".symver log2,log2@" SELFSCAN_GLIBC_BASE);
__asm__(".symver pow,pow@" SELFSCAN_GLIBC_BASE);
__asm__(".symver lgamma,lgamma@" SELFSCAN_GLIBC_BASE);
#endif
#endif

// Linked into the addon on Linux (binding.gyp): the C++ runtime is linked
// in statically, and the libstdc++.a built against this
// machine's glibc refers to functions that glibc 2.34 moved from libpthread
// into libc under new versions, to glibc 2.32's __libc_single_threaded,
// and (from std::random_device, which the engine never builds) to
// getentropy and arc4random. The linker wraps those references
// (-Wl,--wrap=NAME sends them to __wrap_NAME) to the definitions here,
// which call each pthread function by its first version (in libpthread
// before 2.34, in libc since; every glibc process of Node has it loaded)
// or stand in for the rest, so the binary needs no glibc above 2.17.
// Elsewhere (musl, other architectures) the wrappers call the functions as
// the libc has them (__real_NAME). test/native/binary-floor.test.ts reads
// the built binary's symbol versions.
#include "glibc_floor.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

extern "C" {

#if defined(SELFSCAN_GLIBC_BASE)
#define SELFSCAN_PTHREAD(name) selfscan_##name
#define SELFSCAN_FIRST_VERSION(name) \
  __asm__(".symver selfscan_" #name "," #name "@" SELFSCAN_GLIBC_BASE)
SELFSCAN_FIRST_VERSION(pthread_create);
SELFSCAN_FIRST_VERSION(pthread_join);
SELFSCAN_FIRST_VERSION(pthread_detach);
SELFSCAN_FIRST_VERSION(pthread_once);
SELFSCAN_FIRST_VERSION(pthread_key_create);
SELFSCAN_FIRST_VERSION(pthread_key_delete);
SELFSCAN_FIRST_VERSION(pthread_getspecific);
SELFSCAN_FIRST_VERSION(pthread_setspecific);
#else
#define SELFSCAN_PTHREAD(name) __real_##name
#endif

int SELFSCAN_PTHREAD(pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int SELFSCAN_PTHREAD(pthread_join)(pthread_t, void**);
int SELFSCAN_PTHREAD(pthread_detach)(pthread_t);
int SELFSCAN_PTHREAD(pthread_once)(pthread_once_t*, void (*)());
int SELFSCAN_PTHREAD(pthread_key_create)(pthread_key_t*, void (*)(void*));
int SELFSCAN_PTHREAD(pthread_key_delete)(pthread_key_t);
void* SELFSCAN_PTHREAD(pthread_getspecific)(pthread_key_t);
int SELFSCAN_PTHREAD(pthread_setspecific)(pthread_key_t, const void*);

int __wrap_pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                          void* arg) {
  return SELFSCAN_PTHREAD(pthread_create)(thread, attr, start, arg);
}
int __wrap_pthread_join(pthread_t thread, void** result) {
  return SELFSCAN_PTHREAD(pthread_join)(thread, result);
}
int __wrap_pthread_detach(pthread_t thread) { return SELFSCAN_PTHREAD(pthread_detach)(thread); }
int __wrap_pthread_once(pthread_once_t* once, void (*init)()) {
  return SELFSCAN_PTHREAD(pthread_once)(once, init);
}
int __wrap_pthread_key_create(pthread_key_t* key, void (*destroy)(void*)) {
  return SELFSCAN_PTHREAD(pthread_key_create)(key, destroy);
}
// libstdc++ asks for this one (weakly, on glibc) only to learn whether
// threads exist.
int __wrap___pthread_key_create(pthread_key_t* key, void (*destroy)(void*)) {
  return SELFSCAN_PTHREAD(pthread_key_create)(key, destroy);
}
int __wrap_pthread_key_delete(pthread_key_t key) {
  return SELFSCAN_PTHREAD(pthread_key_delete)(key);
}
void* __wrap_pthread_getspecific(pthread_key_t key) {
  return SELFSCAN_PTHREAD(pthread_getspecific)(key);
}
int __wrap_pthread_setspecific(pthread_key_t key, const void* value) {
  return SELFSCAN_PTHREAD(pthread_setspecific)(key, value);
}

// Never "single-threaded": libstdc++ then always takes its atomic paths,
// which are right in any process.
char __wrap___libc_single_threaded = 0;

// What std::random_device would read, from the kernel (Linux 3.17 and on).
int __wrap_getentropy(void* buffer, size_t length) {
  if (length > 256) {
    errno = EIO;
    return -1;
  }
  uint8_t* out = static_cast<uint8_t*>(buffer);
  while (length > 0) {
    long n = syscall(SYS_getrandom, out, length, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    out += n;
    length -= static_cast<size_t>(n);
  }
  return 0;
}
uint32_t __wrap_arc4random() {
  uint32_t value = 0;
  if (__wrap_getentropy(&value, sizeof value) != 0) abort();
  return value;
}

}  // extern "C"

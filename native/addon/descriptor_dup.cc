#include "descriptor_dup.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace selfscan {

namespace {

Napi::Error Failure(Napi::Env env, int fd, int code) {
  Napi::Error failure = Napi::Error::New(
      env, "could not duplicate descriptor " + std::to_string(fd) + ": " + std::strerror(code));
  failure.Set("errno", Napi::Number::New(env, code));
  return failure;
}

}  // namespace

Napi::Value DuplicateDescriptor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "descriptor must be a number");
  int fd = info[0].As<Napi::Number>().Int32Value();
  // dup and FIOCLEX, not fcntl(F_DUPFD_CLOEXEC): glibc 2.28 renamed fcntl
  // (fcntl64), which would raise the binary's glibc floor
  // (test/native/binary-floor.test.ts). A child process started between
  // the two calls would inherit the copy; the service starts none.
  int copy = dup(fd);
  if (copy < 0) throw Failure(env, fd, errno);
  if (ioctl(copy, FIOCLEX) != 0) {
    int code = errno;
    close(copy);
    throw Failure(env, fd, code);
  }
  return Napi::Number::New(env, copy);
}

}  // namespace selfscan

#include "descriptor_dup.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace selfscan {

Napi::Value DuplicateDescriptor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "descriptor must be a number");
  int fd = info[0].As<Napi::Number>().Int32Value();
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) {
    int code = errno;
    Napi::Error failure =
        Napi::Error::New(env, std::string("could not duplicate descriptor ") + std::to_string(fd) +
                                  ": " + std::strerror(code));
    failure.Set("errno", Napi::Number::New(env, code));
    throw failure;
  }
  return Napi::Number::New(env, copy);
}

}  // namespace selfscan

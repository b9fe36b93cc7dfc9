#include "wake_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <system_error>

namespace selfscan {

WakePipe::WakePipe() {
#ifdef __APPLE__
  if (pipe(fds_) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  for (int fd : fds_) {
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
#else
  // pipe2, not fcntl: glibc 2.28 renamed fcntl (fcntl64), above the
  // prebuilt binary's glibc floor.
  if (pipe2(fds_, O_NONBLOCK | O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "pipe2");
  }
#endif
}

WakePipe::~WakePipe() {
  close(fds_[0]);
  close(fds_[1]);
}

void WakePipe::Wake() {
  char one = 1;
  ssize_t ignored = write(fds_[1], &one, 1);
  (void)ignored;
}

void WakePipe::Drain() {
  char buffer[256];
  while (read(fds_[0], buffer, sizeof buffer) > 0) {
  }
}

}  // namespace selfscan

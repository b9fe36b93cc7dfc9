// A self-pipe that wakes a kqueue or poll(2) wait from another thread: what
// every POSIX system has (epoll uses an eventfd instead).
#pragma once

namespace selfscan {

class WakePipe {
 public:
  WakePipe();  // throws std::system_error
  ~WakePipe();
  WakePipe(const WakePipe&) = delete;
  WakePipe& operator=(const WakePipe&) = delete;

  int read_fd() const { return fds_[0]; }
  void Wake();   // any thread; a full pipe is already a wake
  void Drain();  // the waiting thread, after read_fd() was readable

 private:
  int fds_[2] = {-1, -1};
};

}  // namespace selfscan

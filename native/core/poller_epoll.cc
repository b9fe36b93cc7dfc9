// Linux: one epoll set, an eventfd to wake it, and epoll_pwait2's
// microsecond timeout where the kernel has it (5.11+).
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <system_error>

#include "clock.h"
#include "poller.h"

namespace selfscan {

namespace {

constexpr uint64_t kWakeToken = UINT64_MAX;
constexpr int kMaxEvents = 1024;

uint32_t EventsFor(Interest interest) {
  return interest == Interest::kWritable ? EPOLLOUT : EPOLLIN | EPOLLRDHUP;
}

class EpollPoller : public Poller {
 public:
  EpollPoller() : events_(kMaxEvents) {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) {
      int e = errno;
      close(epoll_fd_);
      throw std::system_error(e, std::generic_category(), "eventfd");
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kWakeToken;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) {
      int e = errno;
      close(wake_fd_);
      close(epoll_fd_);
      throw std::system_error(e, std::generic_category(), "epoll_ctl");
    }
  }
  ~EpollPoller() override {
    close(wake_fd_);
    close(epoll_fd_);
  }

  PollerKind kind() const override { return PollerKind::kEpoll; }

  bool Add(int fd, uint64_t token, Interest interest) override {
    return Control(EPOLL_CTL_ADD, fd, token, interest);
  }
  bool Change(int fd, uint64_t token, Interest interest) override {
    return Control(EPOLL_CTL_MOD, fd, token, interest);
  }
  void Remove(int) override {}  // closing the socket leaves the set: no syscall

  int Wait(std::vector<Readiness>& out, int64_t timeout_us) override {
    out.clear();
    int n = WaitEvents(timeout_us);
    for (int i = 0; i < n; ++i) {
      const epoll_event& event = events_[i];
      if (event.data.u64 == kWakeToken) {
        uint64_t count;
        ssize_t ignored = read(wake_fd_, &count, sizeof count);
        (void)ignored;
        continue;
      }
      bool failed = event.events & (EPOLLERR | EPOLLHUP);
      out.push_back(Readiness{event.data.u64, (event.events & EPOLLOUT) != 0,
                              failed || (event.events & (EPOLLIN | EPOLLRDHUP)), 0});
    }
    return n < 0 ? -1 : static_cast<int>(out.size());
  }

  void Wake() override {
    uint64_t one = 1;
    ssize_t ignored = write(wake_fd_, &one, sizeof one);
    (void)ignored;
  }

 private:
  bool Control(int op, int fd, uint64_t token, Interest interest) {
    epoll_event ev{};
    ev.events = EventsFor(interest);
    ev.data.u64 = token;
    return epoll_ctl(epoll_fd_, op, fd, &ev) == 0;
  }

  int WaitEvents(int64_t timeout_us) {
#ifdef SYS_epoll_pwait2
    // Microsecond waits: pacing at thousands of connects per second needs them.
    if (timeout_us >= 0) {
      timespec timeout = TimespecOfUs(timeout_us);
      long n =
          syscall(SYS_epoll_pwait2, epoll_fd_, events_.data(), kMaxEvents, &timeout, nullptr, 0);
      if (n >= 0 || errno != ENOSYS) return static_cast<int>(n);
    }
#endif
    return epoll_wait(epoll_fd_, events_.data(), kMaxEvents, MillisecondsUp(timeout_us));
  }

  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::vector<epoll_event> events_;
};

}  // namespace

std::unique_ptr<Poller> MakeEpollPoller() { return std::make_unique<EpollPoller>(); }

}  // namespace selfscan

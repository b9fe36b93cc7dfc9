// poll(2): the backend every POSIX system has. One pollfd per watched socket
// in a dense array (a socket's place is found by its descriptor), the wake
// pipe first. Each wait hands the kernel the whole array, so its cost grows
// with the sockets in flight; ppoll gives microsecond timeouts where it
// exists.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>

#include <cstdint>

#include "clock.h"
#include "poller.h"
#include "wake_pipe.h"

namespace selfscan {

namespace {

short EventsFor(Interest interest) { return interest == Interest::kWritable ? POLLOUT : POLLIN; }

class PollPoller : public Poller {
 public:
  PollPoller() {
    fds_.push_back(pollfd{wake_.read_fd(), POLLIN, 0});
    tokens_.push_back(0);
  }

  PollerKind kind() const override { return PollerKind::kPoll; }

  bool Add(int fd, uint64_t token, Interest interest) override {
    if (fd < 0) {
      errno = EBADF;
      return false;
    }
    if (static_cast<size_t>(fd) >= place_.size()) place_.resize(fd + 1, kNowhere);
    if (place_[fd] != kNowhere) {
      errno = EEXIST;
      return false;
    }
    place_[fd] = fds_.size();
    fds_.push_back(pollfd{fd, EventsFor(interest), 0});
    tokens_.push_back(token);
    return true;
  }

  bool Change(int fd, uint64_t token, Interest interest) override {
    if (fd < 0 || static_cast<size_t>(fd) >= place_.size() || place_[fd] == kNowhere) {
      errno = ENOENT;
      return false;
    }
    fds_[place_[fd]].events = EventsFor(interest);
    tokens_[place_[fd]] = token;
    return true;
  }

  void Remove(int fd) override {
    if (fd < 0 || static_cast<size_t>(fd) >= place_.size() || place_[fd] == kNowhere) return;
    size_t at = place_[fd];
    size_t last = fds_.size() - 1;
    fds_[at] = fds_[last];
    tokens_[at] = tokens_[last];
    place_[fds_[at].fd] = at;
    fds_.pop_back();
    tokens_.pop_back();
    place_[fd] = kNowhere;
  }

  int Wait(std::vector<Readiness>& out, int64_t timeout_us) override {
    out.clear();
    int n = PollAll(timeout_us);
    if (n < 0) return -1;
    if (fds_[0].revents != 0) {
      wake_.Drain();
      --n;
    }
    for (size_t i = 1; i < fds_.size() && n > 0; ++i) {
      short revents = fds_[i].revents;
      if (revents == 0) continue;
      --n;
      bool failed = revents & (POLLERR | POLLHUP | POLLNVAL);
      out.push_back(
          Readiness{tokens_[i], (revents & POLLOUT) != 0, failed || (revents & POLLIN) != 0, 0});
    }
    return static_cast<int>(out.size());
  }

  void Wake() override { wake_.Wake(); }

 private:
  static constexpr size_t kNowhere = SIZE_MAX;

  int PollAll(int64_t timeout_us) {
    nfds_t count = static_cast<nfds_t>(fds_.size());
#if defined(__linux__) || defined(__FreeBSD__) || defined(__OpenBSD__)
    if (timeout_us >= 0) {
      timespec timeout = TimespecOfUs(timeout_us);
      return ppoll(fds_.data(), count, &timeout, nullptr);
    }
#endif
    return poll(fds_.data(), count, MillisecondsUp(timeout_us));
  }

  WakePipe wake_;
  std::vector<pollfd> fds_;
  std::vector<uint64_t> tokens_;  // beside fds_
  std::vector<size_t> place_;     // by descriptor: its index in fds_
};

}  // namespace

std::unique_ptr<Poller> MakePollPoller() { return std::make_unique<PollPoller>(); }

}  // namespace selfscan

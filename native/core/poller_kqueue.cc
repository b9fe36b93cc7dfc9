// macOS, FreeBSD, OpenBSD: one kqueue. A connecting socket is watched with
// EVFILT_WRITE; a refused or failed connect comes back with EV_EOF and the
// error in fflags. A socket read for its banner is watched with EVFILT_READ.
// A self-pipe wakes the wait (EVFILT_USER is missing on OpenBSD). Tokens are
// kept by descriptor rather than in udata, whose width differs by platform;
// an event's token is read as the wait returns, so a socket closed and its
// number reused while those events are handled cannot take them.
#include <errno.h>
#include <sys/types.h>
// After sys/types.h: the BSDs' sys/event.h uses its types.
#include <sys/event.h>
#include <sys/time.h>
#include <unistd.h>

#include <system_error>

#include "clock.h"
#include "poller.h"
#include "wake_pipe.h"

namespace selfscan {

namespace {

constexpr int kMaxEvents = 1024;

short FilterFor(Interest interest) {
  return interest == Interest::kWritable ? EVFILT_WRITE : EVFILT_READ;
}

class KqueuePoller : public Poller {
 public:
  KqueuePoller() : events_(kMaxEvents) {
    kq_ = kqueue();
    if (kq_ < 0) throw std::system_error(errno, std::generic_category(), "kqueue");
    struct kevent change;
    EV_SET(&change, wake_.read_fd(), EVFILT_READ, EV_ADD, 0, 0, nullptr);
    if (kevent(kq_, &change, 1, nullptr, 0, nullptr) != 0) {
      int e = errno;
      close(kq_);
      throw std::system_error(e, std::generic_category(), "kevent");
    }
  }
  ~KqueuePoller() override { close(kq_); }

  PollerKind kind() const override { return PollerKind::kKqueue; }

  bool Add(int fd, uint64_t token, Interest interest) override {
    struct kevent change;
    EV_SET(&change, fd, FilterFor(interest), EV_ADD, 0, 0, nullptr);
    if (kevent(kq_, &change, 1, nullptr, 0, nullptr) != 0) return false;
    Remember(fd, token, interest);
    return true;
  }

  bool Change(int fd, uint64_t token, Interest interest) override {
    if (fd < 0 || static_cast<size_t>(fd) >= watched_.size() || !watched_[fd].on) {
      errno = ENOENT;
      return false;
    }
    Watched& current = watched_[fd];
    if (current.interest != interest) {
      struct kevent changes[2];
      EV_SET(&changes[0], fd, FilterFor(current.interest), EV_DELETE, 0, 0, nullptr);
      EV_SET(&changes[1], fd, FilterFor(interest), EV_ADD, 0, 0, nullptr);
      if (kevent(kq_, changes, 2, nullptr, 0, nullptr) != 0) return false;
    }
    Remember(fd, token, interest);
    return true;
  }

  // Closing the socket removes its filters: only our record is left to drop.
  void Remove(int fd) override {
    if (fd >= 0 && static_cast<size_t>(fd) < watched_.size()) watched_[fd].on = false;
  }

  int Wait(std::vector<Readiness>& out, int64_t timeout_us) override {
    out.clear();
    timespec timeout = TimespecOfUs(timeout_us);
    int n =
        kevent(kq_, nullptr, 0, events_.data(), kMaxEvents, timeout_us < 0 ? nullptr : &timeout);
    if (n < 0) return -1;
    for (int i = 0; i < n; ++i) {
      const struct kevent& event = events_[i];
      int fd = static_cast<int>(event.ident);
      if (fd == wake_.read_fd()) {
        wake_.Drain();
        continue;
      }
      if (static_cast<size_t>(fd) >= watched_.size() || !watched_[fd].on) continue;
      bool write = event.filter == EVFILT_WRITE;
      int error = (event.flags & EV_EOF) ? static_cast<int>(event.fflags) : 0;
      out.push_back(Readiness{watched_[fd].token, write, !write, error});
    }
    return static_cast<int>(out.size());
  }

  void Wake() override { wake_.Wake(); }

 private:
  struct Watched {
    uint64_t token = 0;
    Interest interest = Interest::kWritable;
    bool on = false;
  };

  void Remember(int fd, uint64_t token, Interest interest) {
    if (static_cast<size_t>(fd) >= watched_.size()) watched_.resize(fd + 1);
    watched_[fd] = Watched{token, interest, true};
  }

  int kq_ = -1;
  WakePipe wake_;
  std::vector<struct kevent> events_;
  std::vector<Watched> watched_;  // by descriptor
};

}  // namespace

std::unique_ptr<Poller> MakeKqueuePoller() { return std::make_unique<KqueuePoller>(); }

}  // namespace selfscan

// The engine's one seam to the operating system's readiness API: it watches
// sockets through a Poller and nothing else. A backend only reports which
// sockets became writable (a connect finished, either way) or readable (data,
// or the peer closed); the pacing, the path model and every verdict stay in
// the engine. Backends: epoll (Linux), kqueue (macOS and the BSDs) and
// poll(2), which every POSIX system has. Which ones a build has is decided
// by platform in binding.gyp (SELFSCAN_HAVE_EPOLL, SELFSCAN_HAVE_KQUEUE).
// Every method but Wake is for one thread, the engine's; Wake is for any.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace selfscan {

enum class PollerKind : uint8_t { kAuto, kEpoll, kKqueue, kPoll };

// What a probe waits for.
enum class Interest : uint8_t { kWritable, kReadable };

struct Readiness {
  uint64_t token;  // as given to Add or Change
  bool writable;
  bool readable;  // data, end of stream or an error: a read will not block
  // The socket's error when the backend learnt it with the event (kqueue's
  // EV_EOF fflags); 0: ask the socket (SO_ERROR).
  int error;
};

class Poller {
 public:
  virtual ~Poller() = default;
  virtual PollerKind kind() const = 0;
  // Starts watching `fd`; false with errno set when the system refused.
  virtual bool Add(int fd, uint64_t token, Interest interest) = 0;
  // Watches a watched `fd` for another interest, under a new token.
  virtual bool Change(int fd, uint64_t token, Interest interest) = 0;
  // Forgets `fd`; called just before it is closed.
  virtual void Remove(int fd) = 0;
  // Waits up to `timeout_us` (-1: until an event or a wake) and replaces
  // `out` with what became ready: -1 with errno set on failure (EINTR).
  // A wake returns with no readiness of its own.
  virtual int Wait(std::vector<Readiness>& out, int64_t timeout_us) = 0;
  // Ends the current or next Wait early.
  virtual void Wake() = 0;
};

// The backends this build has, the platform's preferred first ("auto").
const std::vector<PollerKind>& AvailablePollers();
const char* PollerName(PollerKind kind);
// False for a name that is not one of auto, epoll, kqueue, poll.
bool ParsePollerKind(const std::string& name, PollerKind* kind);
// Throws std::system_error when the system refuses, std::invalid_argument
// for a backend this build does not have.
std::unique_ptr<Poller> MakePoller(PollerKind kind);

// The backends, for MakePoller; each defined only where it is built.
std::unique_ptr<Poller> MakeEpollPoller();
std::unique_ptr<Poller> MakeKqueuePoller();
std::unique_ptr<Poller> MakePollPoller();

}  // namespace selfscan

#include "poller.h"

#include <stdexcept>

namespace selfscan {

const std::vector<PollerKind>& AvailablePollers() {
  static const std::vector<PollerKind> kinds = {
#ifdef SELFSCAN_HAVE_EPOLL
      PollerKind::kEpoll,
#endif
#ifdef SELFSCAN_HAVE_KQUEUE
      PollerKind::kKqueue,
#endif
      PollerKind::kPoll,
  };
  return kinds;
}

const char* PollerName(PollerKind kind) {
  switch (kind) {
    case PollerKind::kAuto:
      return "auto";
    case PollerKind::kEpoll:
      return "epoll";
    case PollerKind::kKqueue:
      return "kqueue";
    case PollerKind::kPoll:
      return "poll";
  }
  return "?";
}

bool ParsePollerKind(const std::string& name, PollerKind* kind) {
  for (PollerKind k :
       {PollerKind::kAuto, PollerKind::kEpoll, PollerKind::kKqueue, PollerKind::kPoll}) {
    if (name == PollerName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

std::unique_ptr<Poller> MakePoller(PollerKind kind) {
  if (kind == PollerKind::kAuto) kind = AvailablePollers().front();
  switch (kind) {
#ifdef SELFSCAN_HAVE_EPOLL
    case PollerKind::kEpoll:
      return MakeEpollPoller();
#endif
#ifdef SELFSCAN_HAVE_KQUEUE
    case PollerKind::kKqueue:
      return MakeKqueuePoller();
#endif
    case PollerKind::kPoll:
      return MakePollPoller();
    default:
      throw std::invalid_argument(std::string("this build has no ") + PollerName(kind) +
                                  " backend");
  }
}

}  // namespace selfscan

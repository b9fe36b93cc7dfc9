// Tests only, never shipped: kqueue(2) and kevent(2) as the BSDs define
// them, for the two filters and flags native/core/poller_kqueue.cc uses,
// built on epoll. A kqueue is an epoll set; each descriptor's filters are
// one epoll registration with the union of their events.
//
// What it keeps of kqueue's semantics, because the backend relies on them:
// - filters are level-triggered and per (descriptor, filter): EV_ADD of a
//   filter already there updates it; EV_DELETE of one that is not fails
//   with ENOENT;
// - closing a descriptor drops its filters (epoll forgets a closed socket;
//   the stale record here is noticed when the number comes back);
// - a socket that hit an error or end of stream reports EV_EOF, with the
//   socket's error in fflags (a refused connect: EVFILT_WRITE, EV_EOF,
//   fflags ECONNREFUSED);
// - one wait may return a descriptor twice, once per filter.
// Where it differs: reading the error for fflags clears the socket's
// SO_ERROR (Linux cannot read it otherwise), and `data` is always 0.
#include <errno.h>
#include <sys/epoll.h>
#include <sys/event.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <vector>

namespace {

struct Filters {
  bool read = false;
  bool write = false;
};

std::mutex mutex;
std::map<int, std::map<int, Filters>> queues;  // by kqueue, then descriptor

uint32_t EpollEvents(const Filters& filters) {
  return (filters.read ? EPOLLIN | EPOLLRDHUP : 0u) | (filters.write ? EPOLLOUT : 0u);
}

Filters With(Filters filters, short filter, bool on) {
  (filter == EVFILT_READ ? filters.read : filters.write) = on;
  return filters;
}

int Register(int kq, int op, int fd, const Filters& filters) {
  epoll_event ev{};
  ev.events = EpollEvents(filters);
  ev.data.fd = fd;
  return epoll_ctl(kq, op, fd, &ev) == 0 ? 0 : errno;
}

int ApplyChange(int kq, std::map<int, Filters>& watched, const struct kevent& change) {
  int fd = static_cast<int>(change.ident);
  if (change.filter != EVFILT_READ && change.filter != EVFILT_WRITE) return EINVAL;
  bool add = change.flags & EV_ADD;
  if (!add && !(change.flags & EV_DELETE)) return EINVAL;
  auto found = watched.find(fd);
  Filters current = found == watched.end() ? Filters{} : found->second;
  bool had = change.filter == EVFILT_READ ? current.read : current.write;
  if (!add && !had) return ENOENT;
  Filters next = With(current, change.filter, add);
  bool any = next.read || next.write;
  int op = found == watched.end() ? EPOLL_CTL_ADD : any ? EPOLL_CTL_MOD : EPOLL_CTL_DEL;
  int error = Register(kq, op, fd, next);
  if (error == ENOENT && found != watched.end()) {
    // The descriptor was closed (and its number maybe reused): kqueue drops
    // a descriptor's filters on close, so only this change is left.
    if (!add) {
      watched.erase(found);
      return ENOENT;
    }
    next = With(Filters{}, change.filter, true);
    any = true;
    error = Register(kq, EPOLL_CTL_ADD, fd, next);
  }
  if (error != 0) return error;
  if (any) {
    watched[fd] = next;
  } else {
    watched.erase(fd);
  }
  return 0;
}

int SocketError(int fd) {
  int error = 0;
  socklen_t length = sizeof error;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
  return error;
}

int WaitEpoll(int kq, epoll_event* events, int max, const struct timespec* timeout) {
  if (timeout != nullptr) {
    long n = syscall(SYS_epoll_pwait2, kq, events, max, timeout, nullptr, 0);
    if (n >= 0 || errno != ENOSYS) return static_cast<int>(n);
  }
  int ms = timeout == nullptr
               ? -1
               : static_cast<int>(timeout->tv_sec * 1000 + (timeout->tv_nsec + 999999) / 1000000);
  return epoll_wait(kq, events, max, ms);
}

}  // namespace

extern "C" int kqueue(void) {
  int kq = epoll_create1(EPOLL_CLOEXEC);
  if (kq >= 0) {
    std::lock_guard<std::mutex> lock(mutex);
    queues[kq].clear();
  }
  return kq;
}

extern "C" int kevent(int kq, const struct kevent* changelist, int nchanges,
                      struct kevent* eventlist, int nevents, const struct timespec* timeout) {
  std::unique_lock<std::mutex> lock(mutex);
  auto queue = queues.find(kq);
  if (queue == queues.end()) {
    errno = EBADF;
    return -1;
  }
  for (int i = 0; i < nchanges; ++i) {
    int error = ApplyChange(kq, queue->second, changelist[i]);
    if (error != 0) {
      errno = error;
      return -1;
    }
  }
  if (nevents <= 0) return 0;
  lock.unlock();
  std::vector<epoll_event> ready(static_cast<size_t>(nevents));
  int n = WaitEpoll(kq, ready.data(), nevents, timeout);
  if (n < 0) return -1;
  lock.lock();
  std::map<int, Filters>& watched = queues[kq];
  int out = 0;
  for (int i = 0; i < n && out < nevents; ++i) {
    int fd = ready[i].data.fd;
    uint32_t events = ready[i].events;
    auto found = watched.find(fd);
    if (found == watched.end()) continue;
    bool failed = events & (EPOLLERR | EPOLLHUP);
    bool eof = failed || (events & EPOLLRDHUP);
    unsigned int error = failed ? static_cast<unsigned int>(SocketError(fd)) : 0;
    if (found->second.write && (events & EPOLLOUT || failed)) {
      EV_SET(&eventlist[out], fd, EVFILT_WRITE, failed ? EV_EOF : 0, error, 0, nullptr);
      ++out;
    }
    if (found->second.read && (events & (EPOLLIN | EPOLLRDHUP) || failed) && out < nevents) {
      EV_SET(&eventlist[out], fd, EVFILT_READ, eof ? EV_EOF : 0, error, 0, nullptr);
      ++out;
    }
  }
  return out;
}

#include "connect_outcome.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#ifdef __linux__
// After time.h: linux/errqueue.h uses struct timespec without including it.
#include <linux/errqueue.h>
#include <netinet/tcp.h>
#endif

namespace selfscan {

ConnectOutcome ClassifyConnectErrno(int error_number, bool from_network) {
  switch (error_number) {
    case 0:
      return ConnectOutcome::kOpen;
    case EINPROGRESS:
    case EALREADY:
      return ConnectOutcome::kPending;
    case ECONNREFUSED:
    // The handshake completed and was reset before the socket was read: no
    // listener took it (a SYN proxy or a tarpit answers every port's SYN,
    // then resets what it cannot hand on). As the banner read judges it.
    case ECONNRESET:
      return ConnectOutcome::kClosed;
    case EHOSTUNREACH:
    case ENETUNREACH:
    case EHOSTDOWN:
    case ENONET:
    case ENOPROTOOPT:
    case EACCES:  // from the network: ICMPv6 administratively prohibited
      return from_network ? ConnectOutcome::kFiltered : ConnectOutcome::kFatal;
    case ETIMEDOUT:
      return ConnectOutcome::kTimedOut;
    case EAGAIN:
    case EADDRNOTAVAIL:
    case EADDRINUSE:
    case ENOBUFS:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case EINTR:
      return ConnectOutcome::kRetryLater;
    default:
      // EPERM (local firewall or policy), ENETDOWN, EAFNOSUPPORT,
      // EINVAL...: nothing about the target's ports.
      return ConnectOutcome::kFatal;
  }
}

int ConnectErrorOf(int fd, bool writable) {
  int error_number = 0;
  socklen_t length = sizeof error_number;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error_number, &length) != 0) return errno;
  return error_number == 0 && !writable ? EAGAIN : error_number;
}

int OpenProbeSocket(int family) {
#ifdef SOCK_NONBLOCK
  int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
#else
  int fd = socket(family, SOCK_STREAM, 0);  // macOS: no SOCK_NONBLOCK
  if (fd < 0) return -1;
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
      fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
#endif
  int on = 1;
#ifdef SO_NOSIGPIPE
  setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
#ifdef __linux__
  if (family == AF_INET6) {
    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVERR, &on, sizeof on);
  } else {
    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof on);
  }
#endif
  (void)on;
  return fd;
}

bool RefusedByIcmp(int fd) {
#ifdef __linux__
  char control[512];
  msghdr message{};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  if (recvmsg(fd, &message, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return false;
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    bool v4 = c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR;
    bool v6 = c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR;
    if (!v4 && !v6) continue;
    const auto* error = reinterpret_cast<const sock_extended_err*>(CMSG_DATA(c));
    return error->ee_origin == SO_EE_ORIGIN_ICMP || error->ee_origin == SO_EE_ORIGIN_ICMP6;
  }
#endif
  (void)fd;
  return false;
}

bool PeerWindowClosed(int fd) {
#ifdef __linux__
  // tcp_info only grows, and the peer's window (tcpi_snd_wnd, Linux 5.19)
  // sits at byte 228; read as bytes, since glibc's struct stops earlier.
  constexpr socklen_t kPeerWindowAt = 228;
  uint8_t info[512];
  socklen_t length = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &length) != 0) return false;
  if (length < kPeerWindowAt + sizeof(uint32_t)) return false;  // an older kernel: can't tell
  uint32_t window;
  std::memcpy(&window, info + kPeerWindowAt, sizeof window);
  return window == 0;
#else
  (void)fd;
  return false;
#endif
}

}  // namespace selfscan

#include "connect_outcome.h"

#include <errno.h>

namespace selfscan {

ConnectOutcome ClassifyConnectErrno(int error_number, bool from_network) {
  switch (error_number) {
    case 0:
      return ConnectOutcome::kOpen;
    case EINPROGRESS:
    case EALREADY:
      return ConnectOutcome::kPending;
    case ECONNREFUSED:
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

}  // namespace selfscan

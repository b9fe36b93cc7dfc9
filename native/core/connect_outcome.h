// What an errno from connect() (or SO_ERROR after it) means for a port. Kept
// apart so the rule "a local error never becomes a port state" lives in one
// place. Pure function, any thread.
#pragma once

namespace selfscan {

enum class ConnectOutcome {
  kOpen,        // connected
  kClosed,      // refused: the host answered RST
  kFiltered,    // ICMP unreachable / prohibited, reported by the network
  kPending,     // EINPROGRESS: wait for epoll
  kTimedOut,    // the kernel gave up: same as our timeout
  kRetryLater,  // local resource shortage: back off, port goes back in queue
  kFatal,       // the scan cannot work (no route, not permitted, bad family)
};

// `from_network` is true for SO_ERROR read after epoll reported the socket:
// unreachable errors then came from an ICMP message. From connect() itself
// they come from the local routing table, which says nothing of the target.
ConnectOutcome ClassifyConnectErrno(int error_number, bool from_network);

// The errno a connect ended with, read once the socket reported readiness;
// `writable`: it reported writable. Ready without a verdict reads as EAGAIN
// (try the port again), never as connected.
int ConnectErrorOf(int fd, bool writable);

// Asks the kernel to queue the ICMP errors a connect meets (IP_RECVERR),
// so that a refusal can be told apart from an ICMP port unreachable.
void KeepIcmpErrors(int fd, int family);
// True when the refusal of `fd` came from an ICMP message, not an RST: a
// firewall's REJECT (filtered), which connect() reports as ECONNREFUSED.
bool RefusedByIcmp(int fd);

}  // namespace selfscan

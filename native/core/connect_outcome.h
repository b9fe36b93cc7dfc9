// What an errno from connect() (or SO_ERROR after it) means for a port. Kept
// apart so the rule "a local error never becomes a port state" lives in one
// place. Pure function, any thread.
#pragma once

#include <sys/socket.h>

namespace selfscan {

enum class ConnectOutcome {
  kOpen,        // connected
  kClosed,      // refused: the host answered RST
  kFiltered,    // ICMP unreachable / prohibited, reported by the network
  kPending,     // EINPROGRESS: wait for the poller
  kTimedOut,    // the kernel gave up: same as our timeout
  kRetryLater,  // local resource shortage: back off, port goes back in queue
  kFatal,       // the scan cannot work (no route, not permitted, bad family)
};

// `from_network` is true for SO_ERROR read after the poller reported the socket:
// unreachable errors then came from an ICMP message. From connect() itself
// they come from the local routing table, which says nothing of the target.
ConnectOutcome ClassifyConnectErrno(int error_number, bool from_network);

// The errno a connect ended with, read once the socket reported readiness;
// `writable`: it reported writable. Ready without a verdict reads as EAGAIN
// (try the port again), never as connected.
int ConnectErrorOf(int fd, bool writable);

// A nonblocking, close-on-exec TCP socket for one probe, or -1 with errno.
// It never raises SIGPIPE (with kSendNoSignal on each send), and on Linux
// the kernel queues the ICMP errors its connect meets (IP_RECVERR), so that
// a refusal can be told apart from an ICMP port unreachable.
int OpenProbeSocket(int family);
// True when the refusal of `fd` came from an ICMP message, not an RST: a
// firewall's REJECT (filtered), which connect() reports as ECONNREFUSED.
// Always false where the kernel has no error queue (macOS, the BSDs): there
// a REJECT reads as closed.
bool RefusedByIcmp(int fd);

// True when the peer of connected `fd` still advertises a zero window, as
// a SYN proxy's or a tarpit's SYN-ACK does and no host's listener ever does;
// false when it does not, or the system cannot tell (macOS, the BSDs, and
// Linux before tcp_info had the peer's window).
bool PeerWindowClosed(int fd);

#ifdef MSG_NOSIGNAL
constexpr int kSendNoSignal = MSG_NOSIGNAL;
#else
constexpr int kSendNoSignal = 0;  // macOS: SO_NOSIGPIPE, set by OpenProbeSocket
#endif

}  // namespace selfscan
